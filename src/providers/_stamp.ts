/**
 * The time placeholders of generated payloads (scripts/ts_sample.ts writes
 * them where a type asks for a time) and their replacement by the trigger's
 * time. Pure.
 * @module
 */

/** "The trigger's time" as an ISO 8601 string. */
export const NOW = "{{now}}";
/** "The trigger's time" in milliseconds. */
export const NOW_MS = 1_111_111_111_111;
/** "The trigger's time" in seconds. */
export const NOW_S = 1_111_111_111;

/** A copy of `value` with the time placeholders replaced by `now` (ISO, milliseconds, seconds). */
export function stampNow(value: unknown, now: Date): unknown {
  if (value === NOW) return now.toISOString();
  if (value === NOW_MS) return now.getTime();
  if (value === String(NOW_MS)) return String(now.getTime());
  if (value === NOW_S) return Math.floor(now.getTime() / 1000);
  if (Array.isArray(value)) return value.map((v) => stampNow(v, now));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = stampNow(v, now);
    return out;
  }
  return value;
}
