import assert from "node:assert/strict";
import { buildEvent, eventLine, parseEventLine } from "./record.ts";

Deno.test("record: a v2 line (v1 plus hub) and a v1 line both parse", () => {
  const v1 = buildEvent({
    id: "evt_20260101_01J0000000000000000000000",
    endpoint: "gh",
    receivedAt: new Date(0),
    method: "POST",
    path: "/gh",
    query: "",
    headers: [],
    body: new Uint8Array([1]),
    remoteAddr: "",
  });
  assert.equal(v1.v, 1);
  const v2 = { ...v1, v: 2 as const, hub: { channel: "c", seq: 7, receivedAt: new Date(0).toISOString() } };
  assert.ok(eventLine(v2).startsWith('{"v":2,"id":"evt_'));
  assert.deepEqual(parseEventLine(eventLine(v2).trim())?.hub?.seq, 7);
  assert.equal(parseEventLine(eventLine(v1).trim())?.v, 1);
  assert.equal(parseEventLine(eventLine({ ...v1, v: 3 as never }).trim()), undefined);
});
