/**
 * Cutting a string a sender controls (a path, a query) to a bound, marked.
 * @module
 */

/** Appended to a value that was cut. */
export const CUT_MARK = "…[cut]";

/** Most characters of a path or a query kept in a log line or printed (the rest is cut, marked). */
export const LOGGED_FIELD_MAX = 1024;

/** `value` cut to `max` characters and marked with {@linkcode CUT_MARK} so a reader knows. */
export function cutMarked(value: string, max: number = LOGGED_FIELD_MAX): string {
  return value.length <= max ? value : value.slice(0, max) + CUT_MARK;
}
