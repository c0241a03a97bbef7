/**
 * Validation of an endpoint's `forward` field (and of `--forward-to`):
 * `"http://localhost:3000/hook"`, `{ name, to, when, mode, timeout,
 * concurrency, retry, insecure, ca }`, or a list of those (several targets,
 * each taking the events its `when` selects). Pure; every problem is pushed
 * with its field path. `forward` as a user writes it is `ForwardConfig`, in
 * src/config/types.ts (which a config file's types reach without this code).
 * @module
 */
import { targetNameOf } from "../event/delivery.ts";
import { checkKeys, isRecord, type Issues, optionalBoolean, show } from "./_check.ts";
import type { ResolvedForward } from "../ports.ts";
import { checkWhen } from "./forward_when.ts";

export type { ResolvedWhen } from "./forward_when.ts";

/** Defaults of a target. */
export const FORWARD_DEFAULTS = {
  mode: "queue",
  timeoutMs: 30_000,
  concurrency: 8,
  order: "arrival",
  // 20 attempts over about 74 minutes: 1 s, 5 s, 30 s, 1 min, 2 min, then every 5 min. An app that is down
  // (nothing listens) spends none: its events wait for it however long it is down.
  attempts: 20,
  backoffMs: [1000, 5000, 30_000, 60_000, 120_000, 300_000],
} as const;

/** `forward` resolved: every default filled (defined with the ports, src/ports.ts). */
export type { ResolvedForward };

/** Fields of the object form. */
export const FORWARD_FIELDS: readonly string[] = [
  "name",
  "to",
  "when",
  "mode",
  "timeout",
  "concurrency",
  "order",
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

/**
 * Validates an endpoint's `forward` (one target or a list) found at `at`:
 * names unique, at most one relay target. `provider` is the endpoint's
 * configured provider (a `when.provider` that is not it can never match).
 * `undefined` when absent or wrong (wrong is reported).
 */
export function checkForwards(
  value: unknown,
  at: string,
  issues: Issues,
  provider?: string,
): ResolvedForward[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) {
    const one = checkForward(value, at, issues, provider);
    return one === undefined ? undefined : [one];
  }
  if (value.length === 0) {
    issues.push(`${at} must name at least one target, got []: leave forward out to forward nothing`);
    return undefined;
  }
  const before = issues.length;
  const targets: ResolvedForward[] = [];
  const names = new Map<string, number>();
  let relay: number | undefined;
  value.forEach((entry, i) => {
    const target = checkForward(entry, `${at}[${i}]`, issues, provider);
    if (target === undefined) return;
    const seen = names.get(target.name);
    if (seen !== undefined) {
      issues.push(
        `${at}[${i}].name "${target.name}" is already used by ${at}[${seen}]: ` +
          `give one of them another name: { name: "${target.name}-2", to: ... }`,
      );
    } else names.set(target.name, i);
    if (target.mode === "relay") {
      if (relay !== undefined) {
        issues.push(
          `${at}[${i}].mode "relay": ${at}[${relay}] is already the relay target, and an endpoint has at ` +
            `most one (the one whose answer the sender gets): make the others mode "queue"`,
        );
      } else relay = i;
    }
    targets.push(target);
  });
  return issues.length > before ? undefined : targets;
}

/**
 * A target's fields that only a queue target uses: a relay target sends each request once, while its sender
 * waits, so it has no retries, no order among waiting events and no bound on deliveries in flight.
 */
const RELAY_IGNORES = ["retry", "order", "concurrency"] as const;

/** Validates one target found at `at`; `undefined` when absent or wrong (wrong is reported). */
export function checkForward(
  value: unknown,
  at: string,
  issues: Issues,
  provider?: string,
): ResolvedForward | undefined {
  if (value === undefined) return undefined;
  const before = issues.length;
  const entry: Record<string, unknown> = typeof value === "string"
    ? { to: value }
    : isRecord(value)
    ? value
    : {};
  if (typeof value !== "string" && !isRecord(value)) {
    issues.push(
      `${at} must be a URL string or { to, name, when, mode, timeout, concurrency }, got ${show(value)}`,
    );
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
  if (mode === "relay") {
    for (const field of RELAY_IGNORES) {
      if (entry[field] === undefined) continue;
      issues.push(
        `${at}.${field} has no effect with mode "relay": a relayed request is sent once, as it arrives, and ` +
          `the sender's own retries stand in for hooktap's: remove ${field}, or use mode "queue"`,
      );
    }
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
    "use 8, or 1 for one delivery at a time",
    issues,
    FORWARD_DEFAULTS.concurrency,
  );
  const order = entry.order ?? FORWARD_DEFAULTS.order;
  if (order !== "arrival" && order !== "parallel") {
    issues.push(`${at}.order must be "arrival" or "parallel", got ${show(order)}`);
  }
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
  if (entry.name !== undefined && (typeof entry.name !== "string" || !/^[^\s\p{Cc}]+$/u.test(entry.name))) {
    issues.push(`${at}.name must be a non-empty name without spaces, like "orders", got ${show(entry.name)}`);
  }
  const when = checkWhen(entry.when, `${at}.when`, issues, provider);
  if (issues.length > before) return undefined;
  return {
    name: typeof entry.name === "string" ? entry.name : targetNameOf(entry.to as string),
    ...(when !== undefined ? { when } : {}),
    to: entry.to as string,
    mode: mode as "queue" | "relay",
    timeoutMs,
    concurrency,
    order: order as "arrival" | "parallel",
    attempts,
    backoffMs,
    insecure,
    ...(typeof entry.ca === "string" ? { caFile: entry.ca } : {}),
  };
}
