import assert from "node:assert/strict";
import {
  buildEvent,
  decodeBody,
  encodeBody,
  eventLine,
  headerValue,
  isoTime,
  parseEventLine,
} from "./record.ts";

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

Deno.test("encodeBody() gives the fatal decoder's text, or base64 where it refuses, for 20,000 generated bodies", () => {
  // The reference: what encodeBody() did before it decoded leniently first (issue 36, eighth round).
  const fatal = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const reference = (bytes: Uint8Array) => {
    if (bytes.length === 0) return { body: "", bodyEncoding: "utf8" };
    try {
      return { body: fatal.decode(bytes), bodyEncoding: "utf8" };
    } catch {
      return { body: bytes.toBase64(), bodyEncoding: "base64" };
    }
  };
  const utf8 = (text: string) => [...new TextEncoder().encode(text)];
  const pieces: number[][] = [
    ...["a", "{", '"', "\\", "\n", "\u0000", "\u007f", "é", "€", "\u2028", "😀", "\ufffd", "\ufeff"].map(
      utf8,
    ),
    [0xef, 0xbf, 0xbd], // U+FFFD as sent: valid text that holds the replacement character
    [0x80], // a lone continuation byte
    [0xbf],
    [0xc0, 0xaf], // overlong
    [0xc1, 0x81],
    [0xe0, 0x80, 0xaf],
    [0xed, 0xa0, 0x80], // an encoded surrogate
    [0xf4, 0x90, 0x80, 0x80], // past U+10FFFF
    [0xf5],
    [0xff],
    [0xe2, 0x82], // truncated
    [0xf0, 0x9f, 0x98],
  ];
  let seed = 36; // xorshift32: the same bodies every run
  const next = (n: number) => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) % n;
  };
  let [texts, binaries] = [0, 0];
  for (let i = 0; i < 20_000; i++) {
    const size = [1, 8, 300, 2000][next(4)]!; // past the short ASCII path too
    const valid = next(2) === 0; // valid pieces only (the first 14), or any with at least one invalid
    const out: number[] = next(10) === 0 ? [0xef, 0xbb, 0xbf] : [];
    while (out.length < size) out.push(...pieces[next(valid ? 14 : pieces.length)]!);
    if (!valid) out.splice(next(out.length + 1), 0, ...pieces[14 + next(pieces.length - 14)]!);
    const bytes = new Uint8Array(out);
    const encoded = encodeBody(bytes);
    assert.deepEqual(encoded, reference(bytes), `bytes ${bytes.slice(0, 64).toBase64()}`);
    if (encoded.bodyEncoding === "utf8") texts++;
    else binaries++;
  }
  assert.ok(texts > 5_000 && binaries > 5_000, `${texts} text, ${binaries} base64`);
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

Deno.test("headerValue() finds what a lower-cased comparison finds, for 20,000 generated names and lists", () => {
  // The lookup before it compared `k.toLowerCase() === name.toLowerCase()` for names of the same length.
  const reference = (headers: readonly [string, string][], name: string) => {
    const lower = name.toLowerCase();
    for (const [k, v] of headers) if (k.length === lower.length && k.toLowerCase() === lower) return v;
    return undefined;
  };
  // Letters whose case maps change a string's length or leave ASCII (İ, ß, the Kelvin sign K, ſ), and ASCII.
  const letters = [
    "a",
    "A",
    "b",
    "B",
    "k",
    "K",
    "s",
    "S",
    "i",
    "I",
    "-",
    "1",
    "_",
    "\u0130",
    "\u00df",
    "\u212a",
    "\u017f",
    "\u00e9",
  ];
  let seed = 36;
  const random = (n: number) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return (seed >>> 8) % n;
  };
  const word = () => Array.from({ length: 1 + random(4) }, () => letters[random(letters.length)]).join("");
  for (let i = 0; i < 20_000; i++) {
    const headers = Array.from({ length: random(6) }, (_, j) => [word(), `v${j}`] as [string, string]);
    const name = random(3) === 0 && headers.length > 0 ? headers[random(headers.length)]![0] : word();
    for (const asked of [name, name.toLowerCase(), name.toUpperCase()]) {
      assert.equal(
        headerValue(headers, asked),
        reference(headers, asked),
        JSON.stringify({ headers, asked }),
      );
    }
  }
  assert.equal(headerValue([["Content-Type", "a"], ["content-type", "b"]], "content-type"), "a");
  assert.equal(headerValue([["x-a", "1"]], "X-A"), "1");
});

Deno.test("isoTime() is toISOString(), asked again within a millisecond or not, and throws for no time", () => {
  const base = Date.UTC(2026, 10, 28, 23, 59, 59, 999);
  for (const ms of [base, base, base + 1, base - 5, 0, base + 1, -1, 8.64e15]) {
    assert.equal(isoTime(new Date(ms)), new Date(ms).toISOString());
  }
  assert.throws(() => isoTime(new Date(NaN)), RangeError);
  assert.equal(isoTime(new Date(base)), new Date(base).toISOString());
});
