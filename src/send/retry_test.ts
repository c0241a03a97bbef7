import assert from "node:assert/strict";
import { isRetryable, nextDelay } from "./retry.ts";

const target = { attempts: 4, backoffMs: [1000, 3000] };

Deno.test("retry: no answer, 5xx, 429 and 408 are retried; 4xx and 2xx are not", () => {
  assert.equal(isRetryable({ error: "refused" }), true);
  assert.equal(isRetryable({ status: 503 }), true);
  assert.equal(isRetryable({ status: 429 }), true);
  assert.equal(isRetryable({ status: 404 }), false);
  assert.equal(isRetryable({ status: 200 }), false);
});

Deno.test("retry: backoff steps, the last repeating, none after the last attempt", () => {
  assert.deepEqual([1, 2, 3, 4].map((n) => nextDelay(target, n, { status: 500 })), [
    1000,
    3000,
    3000,
    undefined,
  ]);
});

Deno.test("retry: Retry-After in seconds or as a date is honoured", () => {
  assert.equal(nextDelay(target, 1, { status: 429, headers: [["Retry-After", "7"]] }), 7000);
  const now = Date.parse("2026-01-01T00:00:00Z");
  const at = new Date(now + 2000).toUTCString();
  assert.equal(nextDelay(target, 1, { status: 503, headers: [["retry-after", at]] }, now), 2000);
});
