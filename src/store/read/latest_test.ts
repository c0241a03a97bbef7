import assert from "node:assert/strict";
import { eventLine } from "../../event/record.ts";
import { readIndex } from "../index_file.ts";
import { writeIndex } from "../write/index_write.ts";
import { latestOfEndpoint } from "./latest.ts";
import { countingReader, logText, makeEvents, tempStore } from "../../../tests/_store_fixture.ts";

// "rare" has one event, at the very start; everything after belongs to "busy".
const RARE = makeEvents(1, { endpoints: ["rare"], start: new Date("2024-05-01T09:00:00Z") })[0]!;
const BUSY = makeEvents(4000, { endpoints: ["busy"] });
const LOG = eventLine(RARE) + logText(BUSY);

Deno.test("latestOfEndpoint() without an index scans the whole log, then writes index.json", async () => {
  await using store = await tempStore(LOG);
  using reader = await countingReader(store);
  const found = await latestOfEndpoint(reader, "rare");
  assert.equal(found.event?.id, RARE.id);
  assert.equal(found.via, "scan");
  using file = await Deno.open(store.events);
  const index = await readIndex(store, file, reader.size);
  assert.deepEqual(index, { v: 1, size: reader.size, latest: { rare: RARE.id, busy: BUSY.at(-1)!.id } });
});

Deno.test("latestOfEndpoint() with an index finds an event at the start of a big log reading little", async () => {
  await using store = await tempStore(LOG);
  const size = (await Deno.stat(store.events)).size;
  await writeIndex(store, { v: 1, size, latest: { rare: RARE.id, busy: BUSY.at(-1)!.id } });
  using reader = await countingReader(store);
  const found = await latestOfEndpoint(reader, "rare");
  assert.equal(found.event?.id, RARE.id);
  assert.equal(found.via, "index");
  assert.ok(reader.bytesRead() < size / 4, `read ${reader.bytesRead()} of ${size}`);
});

Deno.test("latestOfEndpoint() sees events appended after the index was written", async () => {
  const newer = makeEvents(1, { endpoints: ["rare"], start: new Date("2024-06-01T00:00:00Z") })[0]!;
  await using store = await tempStore(LOG + eventLine(newer));
  await writeIndex(store, { v: 1, size: LOG.length, latest: { rare: RARE.id, busy: BUSY.at(-1)!.id } });
  using reader = await countingReader(store);
  const found = await latestOfEndpoint(reader, "rare");
  assert.equal(found.event?.id, newer.id);
});

Deno.test("latestOfEndpoint() ignores an index that does not fit the log and names the endpoints that exist", async () => {
  await using store = await tempStore(LOG);
  await Deno.writeTextFile(store.index, JSON.stringify({ v: 1, size: 10, latest: { rare: RARE.id } }));
  using reader = await countingReader(store);
  const found = await latestOfEndpoint(reader, "nope");
  assert.equal(found.event, undefined);
  assert.deepEqual(found.endpoints, ["busy", "rare"]);
  assert.equal(found.via, "scan");
});

Deno.test("latestOfEndpoint() scans when the index names an event that is not in the log", async () => {
  await using store = await tempStore(LOG);
  const size = (await Deno.stat(store.events)).size;
  const ghost = makeEvents(1, { endpoints: ["rare"], start: new Date("2024-05-01T10:30:00Z") })[0]!;
  await writeIndex(store, { v: 1, size, latest: { rare: ghost.id } });
  using reader = await countingReader(store);
  const found = await latestOfEndpoint(reader, "rare");
  assert.equal(found.event?.id, RARE.id);
});
