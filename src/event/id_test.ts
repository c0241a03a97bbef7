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

Deno.test("ids stay increasing when the clock steps back, keeping the earlier time", () => {
  const next = createIdFactory();
  const later = next(new Date("2026-05-05T05:05:06.000Z"));
  const earlier = next(new Date("2026-05-05T05:05:05.000Z"));
  assert.ok(earlier > later, `${earlier} > ${later}`);
  assert.equal(earlier.slice(13, 23), later.slice(13, 23), "time part kept");
});

Deno.test("ids encode their millisecond in the ULID time part", () => {
  const ms = Date.UTC(2026, 0, 1);
  const id = createIdFactory()(new Date(ms));
  const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
  const decoded = [...id.slice(13, 23)].reduce((n, ch) => n * 32 + alphabet.indexOf(ch), 0);
  assert.equal(decoded, ms);
});
