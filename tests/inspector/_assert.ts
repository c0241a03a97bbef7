/** Two small assertions over node:assert (JSR is out of reach here). */
import assert from "node:assert/strict";

/** Deep, strict equality. */
export function assertEquals(actual: unknown, expected: unknown, message?: string): void {
  assert.deepEqual(actual, expected, message);
}

/** `text` holds `part`. */
export function assertIncludes(text: string, part: string): void {
  assert.ok(
    text.includes(part),
    `expected ${JSON.stringify(text.slice(0, 300))} to include ${JSON.stringify(part)}`,
  );
}
