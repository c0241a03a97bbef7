import assert from "node:assert/strict";
import { createIdFactory } from "../../event/id.ts";
import { buildEvent, eventLine } from "../../event/record.ts";
import { endpointMatcher, idTime, lineEndpoint, lineId } from "./line_key.ts";

const enc = new TextEncoder();
const at = new Date("2024-05-01T10:00:00.123Z");
const EVENT = buildEvent({
  id: "evt_20240501_01HWSP3MM06FBZC4W1PNMV4KMH",
  endpoint: 'we"ird\\name',
  receivedAt: at,
  method: "POST",
  path: "/",
  query: "",
  headers: [],
  body: new Uint8Array(),
  remoteAddr: "",
});

Deno.test("lineId() and lineEndpoint() read a record's first fields from its bytes, matching the writer's format", () => {
  const line = enc.encode(eventLine(EVENT));
  assert.equal(lineId(line), EVENT.id);
  assert.equal(lineEndpoint(line), EVENT.endpoint);
  assert.equal(endpointMatcher(EVENT.endpoint)(line), true);
  assert.equal(endpointMatcher("we")(line), false);
});

Deno.test("lineId() reads v2 lines and rejects lines that are not v1 or v2 records", () => {
  assert.equal(
    lineId(enc.encode('{"v":2,"id":"evt_20240501_01HWSP3MM06FBZC4W1PNMV4KMH","endpoint":"a"}')),
    "evt_20240501_01HWSP3MM06FBZC4W1PNMV4KMH",
  );
  for (
    const text of [
      "",
      "garbage",
      '{"v":3,"id":"evt_20240501_01HWSP3MM06FBZC4W1PNMV4KMH"',
      '{"v":1,"id":"evt_2024"}',
    ]
  ) {
    assert.equal(lineId(enc.encode(text)), undefined, text);
  }
});

Deno.test("idTime() decodes the millisecond time of an id's ULID", () => {
  assert.equal(idTime(createIdFactory()(at)), at.getTime());
  assert.ok(Number.isNaN(idTime("evt_x")));
});

Deno.test("lineId() reads a v2 line (v1 plus optional fields) like a v1 line", () => {
  const id = "evt_20240501_01HWSP3MM06FBZC4W1PNMV4KMH";
  assert.equal(lineId(enc.encode(`{"v":2,"id":"${id}","endpoint":"a"`)), id);
});
