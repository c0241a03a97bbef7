/**
 * Which events a reader keeps: by endpoint, method and age. Parsing of the
 * `--since` and `--timeout` durations lives here too. Pure.
 * @module
 */
import { UsageError } from "../../errors.ts";
import type { CapturedEvent, VerdictStatus } from "../../event/record.ts";

/** Filters of `hooktap logs`; every field that is set must match. */
export interface EventFilter {
  /** Endpoint name, exact. */
  endpoint?: string;
  /** HTTP method, any case. */
  method?: string;
  /** Only events received at or after this time. */
  since?: Date;
  /** Sender (`github`, `stripe`), exact. */
  provider?: string;
  /** Event type: exact, or a prefix up to a `.` or space (`issues` matches `issues.opened`). */
  type?: string;
  /** Signature verdict; an event without one counts as `unsigned`. */
  verdict?: VerdictStatus;
}

/** The verdicts `--verdict` accepts. */
export const VERDICTS: readonly VerdictStatus[] = ["valid", "invalid", "expired", "unsigned", "no-secret"];

/**
 * A `--verdict` value (`no secret` and `no_secret` are `no-secret`).
 * @throws {UsageError} for anything else.
 */
export function parseVerdict(text: string): VerdictStatus {
  const v = text.trim().toLowerCase().replace(/[\s_]+/g, "-");
  if ((VERDICTS as readonly string[]).includes(v)) return v as VerdictStatus;
  throw new UsageError(`--verdict must be one of ${VERDICTS.join(", ")}; got "${text}".`);
}

function _typeMatches(type: string | undefined, wanted: string): boolean {
  if (type === undefined) return false;
  return type === wanted || type.startsWith(`${wanted}.`) || type.startsWith(`${wanted} `);
}

/** Whether `event` passes `filter`. */
export function matchesFilter(event: CapturedEvent, filter: EventFilter): boolean {
  if (filter.endpoint !== undefined && event.endpoint !== filter.endpoint) return false;
  if (filter.method !== undefined && event.method.toUpperCase() !== filter.method.toUpperCase()) return false;
  if (filter.since !== undefined && Date.parse(event.receivedAt) < filter.since.getTime()) return false;
  if (filter.provider !== undefined && event.provider !== filter.provider.toLowerCase()) return false;
  if (filter.type !== undefined && !_typeMatches(event.type, filter.type)) return false;
  if (filter.verdict !== undefined && (event.verdict?.status ?? "unsigned") !== filter.verdict) return false;
  return true;
}

const UNITS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/**
 * A duration like `500ms`, `30s`, `10m`, `2h`, `1d`, `1h30m`, in milliseconds;
 * a bare number is in `bareUnit`.
 * @returns `undefined` when `text` is not a duration.
 */
export function parseDuration(text: string, bareUnit: "s" | "ms" = "s"): number | undefined {
  const t = text.trim().toLowerCase();
  if (/^\d+(\.\d+)?$/.test(t)) return Number(t) * UNITS[bareUnit]!;
  if (!/^(\d+(\.\d+)?(ms|s|m|h|d|w))+$/.test(t)) return undefined;
  let total = 0;
  for (const m of t.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/g)) total += Number(m[1]) * UNITS[m[2]!]!;
  return total;
}

/**
 * The time a `--since` value stands for: a duration back from `now` (`10m`,
 * `2h`) or an ISO 8601 date or time (`2024-05-01`, `2024-05-01T10:00:00Z`).
 * @throws {UsageError} for anything else.
 */
export function parseSince(text: string, now: Date = new Date()): Date {
  const ms = parseDuration(text);
  if (ms !== undefined && !/^\d+(\.\d+)?$/.test(text.trim())) return new Date(now.getTime() - ms);
  if (/^\d{4}-\d{2}-\d{2}/.test(text.trim())) {
    const at = Date.parse(text.trim());
    if (!Number.isNaN(at)) return new Date(at);
  }
  throw new UsageError(
    `--since must be a duration like 10m, 2h or 1d, or an ISO time like 2024-05-01T10:00:00Z; got "${text}".`,
  );
}
