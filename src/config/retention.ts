/**
 * The `retention` field of the config: what `hooktap dev` prunes while it
 * runs (at start, then every 10 minutes). Pure. As the user writes it:
 * `RetentionConfig` (src/config/types.ts); after validation: `Retention`
 * (src/ports.ts), which the store applies.
 * @module
 */
import { parseDuration } from "../query/filter.ts";
import type { Retention } from "../ports.ts";
import { checkKeys, isRecord, type Issues, show } from "./_check.ts";

/** Fields of `retention`. */
export const RETENTION_FIELDS: readonly string[] = ["keep", "olderThan"];

/** Checks `retention`; `undefined` when it is not set. */
export function checkRetention(value: unknown, issues: Issues): Retention | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value)) {
    issues.push(`retention must be an object like { keep: 100000, olderThan: "7d" }, got ${show(value)}`);
    return undefined;
  }
  checkKeys(value, RETENTION_FIELDS, "retention", "a retention", issues);
  const out: { keep?: number; olderThanMs?: number } = {};
  if (value.keep !== undefined) {
    if (typeof value.keep !== "number" || !Number.isSafeInteger(value.keep) || value.keep < 1) {
      issues.push(`retention.keep must be a whole number of events, at least 1, got ${show(value.keep)}`);
    } else out.keep = value.keep;
  }
  if (value.olderThan !== undefined) {
    const ms = typeof value.olderThan === "string" && !/^\s*\d+(\.\d+)?\s*$/.test(value.olderThan)
      ? parseDuration(value.olderThan)
      : undefined;
    if (ms === undefined || ms <= 0) {
      issues.push(
        `retention.olderThan must be an age like "7d", "12h" or "30m", got ${show(value.olderThan)}`,
      );
    } else out.olderThanMs = ms;
  }
  if (out.keep === undefined && out.olderThanMs === undefined && issues.length === 0) {
    issues.push(`retention needs keep or olderThan: retention: { keep: 100000 } or { olderThan: "7d" }`);
  }
  return out;
}
