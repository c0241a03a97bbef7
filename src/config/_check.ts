/**
 * Small pure checks shared by the config's validators: each pushes a
 * message naming the field path and the fix onto `issues`, never throws.
 * @module
 */
import { closest } from "../text/suggest.ts";

/** Problems found so far, each a sentence starting with its field path. */
export type Issues = string[];

/** Whether `value` is a plain object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A value as it appears in a message: strings quoted, `missing` for undefined. */
export function show(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (value === undefined) return "nothing (the field is missing)";
  if (typeof value === "function") return "a function";
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** `a.b` or `b` when `at` is empty. */
export function field(at: string, key: string): string {
  return at === "" ? key : `${at}.${key}`;
}

/**
 * Reports every key of `object` that is not in `known`, with the closest
 * known key when one is a likely typo: `endpoints[0].methd is not an endpoint
 * field: did you mean "method"? (known: name, path, method)`.
 */
export function checkKeys(
  object: Record<string, unknown>,
  known: readonly string[],
  at: string,
  what: string,
  issues: Issues,
): void {
  for (const key of Object.keys(object)) {
    if (known.includes(key)) continue;
    const near = closest(key, known);
    issues.push(
      `${field(at, key)} is not ${what} field` + (near === undefined ? "" : `: did you mean "${near}"?`) +
        ` (known: ${known.join(", ")})`,
    );
  }
}

/** An optional non-negative whole number; `fallback` when absent or wrong (wrong is reported). */
export function optionalCount(
  value: unknown,
  where: string,
  fix: string,
  issues: Issues,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    issues.push(`${where} must be a whole number, got ${show(value)}: ${fix}`);
    return fallback;
  }
  return value;
}

/** An optional boolean; `fallback` when absent or wrong (wrong is reported). */
export function optionalBoolean(value: unknown, where: string, issues: Issues, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== "boolean") {
    issues.push(`${where} must be true or false, got ${show(value)}`);
    return fallback;
  }
  return value;
}
