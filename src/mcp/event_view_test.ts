import assert from "node:assert/strict";
import { buildEvent } from "../event/record.ts";
import { bodyPiece, fullEvent, summaryOf } from "./event_view.ts";

function event(body: Uint8Array) {
  return buildEvent({
    id: "evt_20240501_01HXA5B7K3M2N4P6Q8R0S2T4V6",
    endpoint: "github",
    receivedAt: new Date("2024-05-01T10:00:00Z"),
    method: "POST",
    path: "/github",
    query: "a=1",
    headers: [["X-GitHub-Event", "push"], ["X-Dup", "1"], ["x-dup", "2"]],
    body,
    remoteAddr: "127.0.0.1",
  });
}

Deno.test("bodyPiece: a UTF-8 body is cut between characters, and its pieces joined are the body", () => {
  const text = "héllo wörld ✓ — 🎉 done";
  const e = event(new TextEncoder().encode(text));
  for (const limit of [1, 2, 3, 5, 7]) {
    let joined = "";
    let bytes = 0;
    for (let offset: number | undefined = 0; offset !== undefined;) {
      const piece = bodyPiece(e, offset, limit);
      assert.equal(piece.encoding, "utf8");
      assert.ok(!piece.data.includes("\ufffd"), `limit ${limit}: no broken character`);
      joined += piece.data;
      bytes += piece.length;
      offset = piece.nextOffset;
      assert.equal(piece.truncated, offset !== undefined);
    }
    assert.equal(joined, text, `limit ${limit}`);
    assert.equal(bytes, new TextEncoder().encode(text).length);
  }
});

Deno.test("bodyPiece: a binary body is base64 per piece, with its size", () => {
  const bytes = Uint8Array.from({ length: 300 }, (_, i) => (i * 7 + 0x80) & 0xff);
  const e = event(bytes);
  const first = bodyPiece(e, 0, 256);
  assert.equal(first.encoding, "base64");
  assert.equal(first.size, 300);
  assert.equal(first.nextOffset, 256);
  const rest = bodyPiece(e, 256, 256);
  assert.equal(rest.truncated, false);
  const joined = new Uint8Array([...Uint8Array.fromBase64(first.data), ...Uint8Array.fromBase64(rest.data)]);
  assert.deepEqual(joined, bytes);
  assert.equal(bodyPiece(e, 999).length, 0);
});

Deno.test("fullEvent and summaryOf: headers in order with repeats, unsigned when no verdict, no deliveries", () => {
  const e = event(new TextEncoder().encode("{}"));
  const full = fullEvent(e, undefined);
  assert.deepEqual(full.headers.map((h) => h.name), ["X-GitHub-Event", "X-Dup", "x-dup"]);
  assert.deepEqual(full.verdict, { status: "unsigned" });
  assert.deepEqual(full.deliveries, []);
  assert.equal(full.query, "a=1");
  const s = summaryOf(e);
  assert.equal(s.verdict, "unsigned");
  assert.equal(s.deliveries, undefined);
});

Deno.test("bodyPiece: an offset inside a UTF-8 character starts at that character, never a broken one", () => {
  const text = "a😀b漢c";
  const bytes = new TextEncoder().encode(text);
  const e = event(bytes);
  for (let offset = 0; offset <= bytes.length; offset++) {
    for (const limit of [1, 2, 4, 64]) {
      const piece = bodyPiece(e, offset, limit);
      assert.ok(
        !piece.data.includes("\ufffd"),
        `offset ${offset}, limit ${limit}: ${JSON.stringify(piece.data)}`,
      );
      assert.ok(piece.offset <= offset && offset - piece.offset < 4, `offset ${offset} -> ${piece.offset}`);
      // `data` is exactly the body's bytes from `offset`, `length` of them.
      assert.deepEqual(
        new TextEncoder().encode(piece.data),
        bytes.subarray(piece.offset, piece.offset + piece.length),
      );
    }
  }
  // The last byte of the emoji (offset 4): the piece is the whole emoji, from its first byte.
  assert.deepEqual({ ...bodyPiece(e, 4, 1) }, {
    encoding: "utf8",
    data: "😀",
    size: bytes.length,
    offset: 1,
    length: 4,
    truncated: true,
    nextOffset: 5,
  });
});
