import assert from "node:assert/strict";
import { createIdFactory, EVENT_ID_PATTERN, utcDay } from "./id.ts";

Deno.test("ids have the shape evt_<UTC date>_<ULID>", () => {
  const id = createIdFactory()(new Date("2026-01-02T23:59:59.999Z"));
  assert.match(id, EVENT_ID_PATTERN);
  assert.ok(id.startsWith("evt_20260102_"), id);
});

Deno.test("utcDay() uses the UTC date, not the local one", () => {
  assert.equal(utcDay(new Date("2026-12-31T23:30:00-05:00")), "20270101");
});

Deno.test("ids from one factory sort in creation order, even within one millisecond", () => {
  const next = createIdFactory();
  const at = new Date("2026-05-05T05:05:05.005Z");
  const ids = Array.from({ length: 1000 }, () => next(at));
  assert.deepEqual([...ids].sort(), ids);
  assert.equal(new Set(ids).size, 1000);
});
