/**
 * Headers as the tools show them: `{ name, value }` in arrival order, repeats kept.
 * @module
 */
import { z } from "zod";

/** A header list's schema. */
export const HEADERS_SCHEMA = z.array(z.object({ name: z.string(), value: z.string() }));

/** `[name, value]` pairs as `{ name, value }` objects, in order. */
export function headerList(
  headers: readonly (readonly [string, string])[],
): { name: string; value: string }[] {
  return headers.map(([name, value]) => ({ name, value }));
}
