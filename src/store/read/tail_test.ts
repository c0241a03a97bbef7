import assert from "node:assert/strict";
import { eventLine } from "../../event/record.ts";
import { tail } from "./tail.ts";
import { countingReader, logText, makeEvents, tempStore } from "../../../tests/_store_fixture.ts";

const EVENTS = makeEvents(500, { endpoints: ["default", "github"] });

Deno.test("tail() returns the newest events, oldest of them first, reading only the end of the log", async () => {
  await using store = await tempStore(logText(EVENTS));
  using reader = await countingReader(store);
  const got = await tail(reader, { limit: 3 });
  assert.deepEqual(got.map((e) => e.id), EVENTS.slice(-3).map((e) => e.id));
  assert.ok(reader.bytesRead() <= 64 * 1024 + 1, `read ${reader.bytesRead()} bytes`);
});

Deno.test("tail() filters by endpoint, method and since", async () => {
  await using store = await tempStore(logText(EVENTS));
  using reader = await countingReader(store);
  const github = await tail(reader, { limit: 2, endpoint: "github" });
  assert.deepEqual(
    github.map((e) => e.id),
    EVENTS.filter((e) => e.endpoint === "github").slice(-2).map((e) => e.id),
  );
  const puts = await tail(reader, { limit: 1000, method: "put" });
  assert.equal(puts.length, EVENTS.filter((e) => e.method === "PUT").length);
  const since = new Date(Date.parse(EVENTS[490]!.receivedAt));
  const recent = await tail(reader, { limit: 1000, since });
  assert.deepEqual(recent.map((e) => e.id), EVENTS.slice(490).map((e) => e.id));
});

Deno.test("tail() skips a torn last line and corrupt lines, counting them", async () => {
  const lines = EVENTS.slice(0, 10).map(eventLine);
  lines.splice(5, 0, "{not json}\n");
  const torn = eventLine(EVENTS[10]!).slice(0, 40);
  await using store = await tempStore(lines.join("") + torn);
  using reader = await countingReader(store);
  const got = await tail(reader, { limit: 100 });
  assert.deepEqual(got.map((e) => e.id), EVENTS.slice(0, 10).map((e) => e.id));
  assert.equal(reader.skipped, 2);
});
