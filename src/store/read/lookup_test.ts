import assert from "node:assert/strict";
import { eventLine } from "../../event/record.ts";
import { findByIdPrefix, parseIdQuery } from "./lookup.ts";
import { countingReader, logText, makeEvents, tempStore } from "../../../tests/_store_fixture.ts";

const EVENTS = makeEvents(3000);

Deno.test("findByIdPrefix() finds any event by its whole id while reading a tiny part of the log", async () => {
  await using store = await tempStore(logText(EVENTS));
  using reader = await countingReader(store);
  for (const i of [0, 1, 1499, 2998, 2999]) {
    const before = reader.bytesRead();
    const found = await findByIdPrefix(reader, parseIdQuery(EVENTS[i]!.id));
    assert.equal(found.event?.id, EVENTS[i]!.id);
    assert.equal(found.via, "search");
    assert.ok(
      reader.bytesRead() - before < reader.size / 2,
      `read ${reader.bytesRead() - before} of ${reader.size}`,
    );
  }
});

Deno.test("findByIdPrefix() accepts a prefix of the ULID part, in any case", async () => {
  await using store = await tempStore(logText(EVENTS));
  using reader = await countingReader(store);
  const id = EVENTS[1234]!.id;
  const found = await findByIdPrefix(reader, parseIdQuery(id.slice(13).toLowerCase()));
  assert.equal(found.event?.id, id);
});

Deno.test("findByIdPrefix() reports every match of an ambiguous prefix, up to max + 1", async () => {
  await using store = await tempStore(logText(EVENTS));
  using reader = await countingReader(store);
  const found = await findByIdPrefix(reader, parseIdQuery("evt_2024"), { max: 5 });
  assert.deepEqual(found.matches.map((m) => m.id), EVENTS.slice(0, 6).map((e) => e.id));
  assert.equal(found.event, undefined);
});

Deno.test("findByIdPrefix() skips corrupt lines it meets and still finds its event", async () => {
  const lines = EVENTS.slice(0, 200).map(eventLine);
  lines.splice(100, 0, "garbage that is not json\n", '{"v":1,"id":"evt_broken\n');
  await using store = await tempStore(lines.join(""));
  using reader = await countingReader(store);
  const found = await findByIdPrefix(reader, parseIdQuery(EVENTS[100]!.id));
  assert.equal(found.event?.id, EVENTS[100]!.id);
});

Deno.test("findByIdPrefix() falls back to a full scan for an event out of order (clock jumped back)", async () => {
  const late = makeEvents(1, { start: new Date("2020-01-01T00:00:00Z") })[0]!;
  const lines = EVENTS.map(eventLine);
  lines.splice(2500, 0, eventLine(late));
  await using store = await tempStore(lines.join(""));
  using reader = await countingReader(store);
  const found = await findByIdPrefix(reader, parseIdQuery(late.id));
  assert.equal(found.event?.id, late.id);
  assert.equal(found.via, "scan");
});

Deno.test("findByIdPrefix() finds nothing for an unknown id", async () => {
  await using store = await tempStore(logText(EVENTS.slice(0, 50)));
  using reader = await countingReader(store);
  const found = await findByIdPrefix(reader, parseIdQuery("7ZZZZZZZ"));
  assert.deepEqual(found.matches, []);
});

Deno.test("parseIdQuery() rejects what cannot be part of an id", () => {
  for (const bad of ["", "hello!", "evt_2024x", "evt_20240501_01HUUU", "I0L"]) {
    assert.throws(() => parseIdQuery(bad), /is not an event id/);
  }
  assert.equal(parseIdQuery("EVT_20240501_01hx").prefix, "evt_20240501_01HX");
  assert.equal(parseIdQuery("01hx").prefix, "01HX");
});

Deno.test("findByIdPrefix() crosses a huge line once, not once per probe", async () => {
  const events = makeEvents(400);
  const big = { ...events[200]!, body: "z".repeat(6 * 1024 * 1024), bodySize: 6 * 1024 * 1024 };
  const lines = events.map(eventLine);
  lines[200] = eventLine(big);
  await using store = await tempStore(lines.join(""));
  using reader = await countingReader(store);
  for (const i of [3, 199, 201]) {
    const before = reader.bytesRead();
    const found = await findByIdPrefix(reader, parseIdQuery(events[i]!.id));
    assert.equal(found.event?.id, events[i]!.id);
    // The search finds where the big line ends once; the walk to the match does not cross it again.
    assert.ok(reader.bytesRead() - before < 1.3 * reader.size, `read ${reader.bytesRead() - before}`);
  }
});
