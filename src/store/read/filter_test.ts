import assert from "node:assert/strict";
import { parseDuration, parseSince } from "./filter.ts";

Deno.test("parseDuration() reads ms, s, m, h, d, w, combinations and bare numbers", () => {
  assert.equal(parseDuration("500ms"), 500);
  assert.equal(parseDuration("30s"), 30_000);
  assert.equal(parseDuration("1h30m"), 5_400_000);
  assert.equal(parseDuration("2d"), 172_800_000);
  assert.equal(parseDuration("1.5"), 1500);
  assert.equal(parseDuration("250", "ms"), 250);
  assert.equal(parseDuration("soon"), undefined);
});

Deno.test("parseSince() takes a duration back from now or an ISO time, and rejects the rest", () => {
  const now = new Date("2024-05-01T12:00:00Z");
  assert.equal(parseSince("10m", now).toISOString(), "2024-05-01T11:50:00.000Z");
  assert.equal(parseSince("2024-04-30T08:00:00Z", now).toISOString(), "2024-04-30T08:00:00.000Z");
  assert.throws(() => parseSince("10", now), /--since must be/);
  assert.throws(() => parseSince("yesterday", now), /--since must be/);
});
