import assert from "node:assert/strict";
import { retryWaits, shuffled, SIGNED_TIMESTAMP, staleTime, timestampedProviders } from "./plan.ts";

Deno.test("shuffled() is the same for the same seed, differs from the original, and keeps every item", () => {
  const items = ["a", "b", "c", "d", "e"];
  assert.deepEqual(shuffled(items, 42), shuffled(items, 42));
  for (let seed = 0; seed < 50; seed++) {
    const out = shuffled(items, seed);
    assert.notDeepEqual(out, items, `seed ${seed}`);
    assert.deepEqual([...out].sort(), items);
  }
  assert.deepEqual(shuffled(["a", "b"], 1), ["b", "a"]);
});

Deno.test("retryWaits() compresses a schedule to seconds keeping its shape, or waits the real delays", () => {
  assert.deepEqual(retryWaits([60, 3600, 86400], 3, false), [1000, 5931, 10493]);
  assert.deepEqual(retryWaits([60, 3600], 4, true), [60_000, 3_600_000, 3_600_000, 3_600_000]);
  assert.deepEqual(retryWaits([], 2, false), [1000, 1000]); // none documented: 1 s apart
  assert.deepEqual(retryWaits([0, 60], 1, false), [0]);
});

Deno.test("staleTime: past the tolerance by a minute; Linear's 60 s window counts when the tolerance is smaller", () => {
  const at = new Date("2026-01-01T00:10:00Z");
  assert.equal(staleTime("stripe", at, 300).toISOString(), "2026-01-01T00:04:00.000Z");
  assert.equal(staleTime("linear", at, 10).toISOString(), "2026-01-01T00:08:00.000Z");
  assert.deepEqual(SIGNED_TIMESTAMP.linear, { bodyField: "webhookTimestamp", unit: "ms" });
  assert.ok(timestampedProviders().includes("discord") && timestampedProviders().includes("sendgrid"));
  assert.ok(!timestampedProviders().includes("github"));
});
