import assert from "node:assert/strict";
import { buildEvent, decodeBody, encodeBody, eventLine, parseEventLine } from "./record.ts";

Deno.test("encodeBody() keeps valid UTF-8 as text, including a byte-order mark", () => {
  const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('{"é":1}')]);
  const encoded = encodeBody(bytes);
  assert.equal(encoded.bodyEncoding, "utf8");
  assert.deepEqual(decodeBody(encoded), bytes);
});

Deno.test("encodeBody() gives short ASCII bodies, control bytes included, the decoder's own text", () => {
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const every = Uint8Array.from({ length: 128 }, (_, i) => i);
  for (
    const bytes of [
      new TextEncoder().encode("ok"),
      every,
      new Uint8Array(256).fill(0x7a),
      new Uint8Array(257).fill(0x7a),
    ]
  ) {
    assert.deepEqual(encodeBody(bytes), { body: decoder.decode(bytes), bodyEncoding: "utf8" });
  }
  // A short body with one byte past ASCII still goes through the checked decoder.
  assert.equal(encodeBody(new Uint8Array([0x6f, 0x80])).bodyEncoding, "base64");
});

Deno.test("encodeBody() stores bytes that are not UTF-8 as base64, byte for byte", () => {
  const bytes = new Uint8Array([0xff, 0x00, 0xc3, 0x28, 0x80]);
  const encoded = encodeBody(bytes);
  assert.deepEqual(encoded, { body: "/wDDKIA=", bodyEncoding: "base64" });
  assert.deepEqual(decodeBody(encoded), bytes);
});

Deno.test("a record survives its line: eventLine() then parseEventLine()", () => {
  const event = buildEvent({
    id: "evt_20260101_01J00000000000000000000000",
    endpoint: "default",
    receivedAt: new Date("2026-01-01T00:00:00.000Z"),
    method: "POST",
    path: "/webhook",
    query: "a=1",
    headers: [["X-A", "1"], ["X-A", "2"]],
    body: new TextEncoder().encode("line\nwith \u2028 and \x1b"),
    remoteAddr: "127.0.0.1",
  });
  const line = eventLine(event);
  assert.ok(line.endsWith("\n") && line.indexOf("\n") === line.length - 1, "one line");
  assert.ok(line.startsWith('{"v":1,"id":"evt_'), "id near the start, for readers that slice it");
  assert.deepEqual(parseEventLine(line), event);
  assert.equal(event.bodySize, 19);
});

Deno.test("parseEventLine() refuses torn, foreign and newer-format lines", () => {
  assert.equal(parseEventLine('{"v":1,"id":"evt_2026'), undefined);
  assert.equal(parseEventLine('{"hello":"world"}'), undefined);
  assert.equal(
    parseEventLine('{"v":3,"id":"x","endpoint":"a","body":"","bodyEncoding":"utf8","headers":[]}'),
    undefined,
  );
  // v2 is v1 plus optional fields (a `trigger` mark): read like v1.
  assert.equal(
    parseEventLine('{"v":2,"id":"x","endpoint":"a","body":"","bodyEncoding":"utf8","headers":[]}')?.id,
    "x",
  );
  assert.equal(parseEventLine("null"), undefined);
  // v2 = v1 plus optional fields: read.
  const v2 = parseEventLine(
    '{"v":2,"id":"x","endpoint":"a","body":"","bodyEncoding":"utf8","headers":[],"merged":["cookie"]}',
  );
  assert.deepEqual(v2?.merged, ["cookie"]);
});
