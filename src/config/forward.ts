/**
 * Validation of an endpoint's `forward` field (and of `--forward-to`):
 * `"http://localhost:3000/hook"` or `{ to, mode, timeout, concurrency,
 * retry, insecure, ca }`. Pure; every problem is pushed with its field path.
 * @module
 */
import { checkKeys, isRecord, type Issues, optionalBoolean, show } from "./_check.ts";

/** Defaults of a target. */
export const FORWARD_DEFAULTS = {
  mode: "queue",
  timeoutMs: 30_000,
  concurrency: 8,
  attempts: 6,
  backoffMs: [1000, 3000, 9000, 27000, 30000],
} as const;

/** `forward` as a user writes it. */
export type ForwardConfig = string | {
  /** Target URL, `http://` or `https://`. The original query string is added when it has none. */
  to: string;
  /** `queue` answers the sender at once and delivers after; `relay` answers with the app's answer. @default "queue" */
  mode?: "queue" | "relay";
  /** Longest wait for the app's answer, in milliseconds. @default 30000 */
  timeout?: number;
  /** Deliveries in flight at once; 1 keeps arrival order. @default 8 */
  concurrency?: number;
  /** Retries in queue mode: `false` for none. @default { attempts: 6, backoff: [1000, 3000, 9000, 27000, 30000] } */
  retry?: false | { attempts?: number; backoff?: readonly number[] };
  /** Accept any TLS certificate (a local self-signed one). @default false */
  insecure?: boolean;
  /** A PEM file of a CA to trust for this https target (relative to the config file's folder). */
  ca?: string;
};

/** `forward` resolved: every default filled. */
export interface ResolvedForward {
  /** Target URL as configured (`:name` parameters are filled per event). */
  readonly to: string;
  /** `queue`: answer the sender at once and deliver after; `relay`: answer with the app's own answer. */
  readonly mode: "queue" | "relay";
  /** Longest wait for the app's answer, in milliseconds. */
  readonly timeoutMs: number;
  /** Deliveries in flight at once to this target (1 keeps arrival order). */
  readonly concurrency: number;
  /** Attempts in all, the first included (1: never retry). */
  readonly attempts: number;
  /** Waits between attempts, in milliseconds; the last repeats. */
  readonly backoffMs: readonly number[];
  /** Accept any TLS certificate (a local self-signed one). */
  readonly insecure: boolean;
  /** Path of a CA file to read at start. */
  readonly caFile?: string;
}

/** Fields of the object form. */
export const FORWARD_FIELDS: readonly string[] = [
  "to",
  "mode",
  "timeout",
  "concurrency",
  "retry",
  "insecure",
  "ca",
];

/** The problem of a target URL, or `undefined` when it is an absolute http(s) URL. */
export function forwardUrlProblem(to: unknown): string | undefined {
  if (typeof to !== "string" || to.trim() === "") {
    return `must be a URL like "http://localhost:3000/webhook", got ${show(to)}`;
  }
  if (/^(localhost|\d{1,3}(\.\d{1,3}){3}|\[[0-9a-f:]+\])(:\d+)?(\/|$)/i.test(to)) {
    return `needs a scheme: did you mean "http://${to}"?`;
  }
  let url: URL;
  try {
    url = new URL(to);
  } catch {
    return `must be a full URL like "http://localhost:3000/webhook", got ${show(to)}`;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return `must be an http:// or https:// URL, got ${show(to)}`;
  }
  if (url.hash !== "") return `must not have a #fragment (it is never sent), got ${show(to)}`;
  return undefined;
}

function whole(
  value: unknown,
  where: string,
  min: number,
  fix: string,
  issues: Issues,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min) {
    issues.push(`${where} must be a whole number${min > 0 ? ` ≥ ${min}` : ""}, got ${show(value)}: ${fix}`);
    return fallback;
  }
  return value;
}

/** Validates a `forward` value found at `at`; `undefined` when absent or wrong (wrong is reported). */
export function checkForward(value: unknown, at: string, issues: Issues): ResolvedForward | undefined {
  if (value === undefined) return undefined;
  const before = issues.length;
  const entry: Record<string, unknown> = typeof value === "string"
    ? { to: value }
    : isRecord(value)
    ? value
    : {};
  if (typeof value !== "string" && !isRecord(value)) {
    issues.push(`${at} must be a URL string or { to, mode, timeout, concurrency }, got ${show(value)}`);
    return undefined;
  }
  const where = typeof value === "string" ? at : `${at}.to`;
  if (isRecord(value)) checkKeys(value, FORWARD_FIELDS, at, "a forward", issues);
  const problem = forwardUrlProblem(entry.to);
  if (problem !== undefined) issues.push(`${where} ${problem}`);
  const mode = entry.mode ?? FORWARD_DEFAULTS.mode;
  if (mode !== "queue" && mode !== "relay") {
    issues.push(`${at}.mode must be "queue" or "relay", got ${show(mode)}`);
  }
  const timeoutMs = whole(
    entry.timeout,
    `${at}.timeout`,
    1,
    "milliseconds, like 30000",
    issues,
    FORWARD_DEFAULTS.timeoutMs,
  );
  const concurrency = whole(
    entry.concurrency,
    `${at}.concurrency`,
    1,
    "use 8, or 1 to deliver in arrival order",
    issues,
    FORWARD_DEFAULTS.concurrency,
  );
  let attempts: number = FORWARD_DEFAULTS.attempts;
  let backoffMs: readonly number[] = FORWARD_DEFAULTS.backoffMs;
  const retry = entry.retry;
  if (retry === false) attempts = 1;
  else if (isRecord(retry)) {
    checkKeys(retry, ["attempts", "backoff"], `${at}.retry`, "a retry", issues);
    attempts = whole(retry.attempts, `${at}.retry.attempts`, 1, "attempts in all, like 6", issues, attempts);
    if (retry.backoff !== undefined) {
      const list = retry.backoff;
      if (
        !Array.isArray(list) || list.length === 0 ||
        list.some((n) => typeof n !== "number" || !Number.isSafeInteger(n) || n < 0)
      ) {
        issues.push(
          `${at}.retry.backoff must be a non-empty list of milliseconds, like [1000, 5000], got ${
            show(list)
          }`,
        );
      } else backoffMs = list as number[];
    }
  } else if (retry !== undefined) {
    issues.push(`${at}.retry must be false or { attempts, backoff }, got ${show(retry)}`);
  }
  const insecure = optionalBoolean(entry.insecure, `${at}.insecure`, issues, false);
  if (entry.ca !== undefined && (typeof entry.ca !== "string" || entry.ca === "")) {
    issues.push(`${at}.ca must be the path of a PEM file, got ${show(entry.ca)}`);
  }
  if (issues.length > before) return undefined;
  return {
    to: entry.to as string,
    mode: mode as "queue" | "relay",
    timeoutMs,
    concurrency,
    attempts,
    backoffMs,
    insecure,
    ...(typeof entry.ca === "string" ? { caFile: entry.ca } : {}),
  };
}
