/**
 * The record corpus of the store's line tests (issue 36, point 6): a seeded generator of records in every
 * shape the store holds, the raw requests that make them through the receiver, and byte comparisons. Shared
 * by src/event/record_line_test.ts (the shipped encoder) and bench/record_line_test.ts (the candidate).
 * @module
 */
import assert from "node:assert/strict";
import {
  buildEvent,
  type CapturedEvent,
  eventLine,
  type Verdict,
  type VerdictStatus,
} from "../src/event/record.ts";
import { seededRandom } from "../src/trigger/plan.ts";

// A seeded generator of records in the shapes the store holds (issue 36, point 6): binary bodies (base64),
// valid UTF-8 with astral characters, a BOM and control characters, invalid UTF-8 (a lone surrogate's bytes,
// a cut sequence), empty bodies, large ones, headers in every case (repeats in odd case, empty values, latin1
// bytes in values as Deno.serve gives them), query strings, every verdict, and the optional fields added in
// the receiver's order or shuffled, and the trigger mark's copy. Built by hooktap's own buildEvent.

/** A seeded PRNG: the same seed, the same corpus. */
export const seeded = seededRandom;

const TOKEN = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
const ASCII_TEXT = ' "\\/{}[]:,.-_=&?%+abcXYZ0189\t';
const UNICODE = [
  "é",
  "ß",
  "€",
  "中",
  "😀",
  "𝄞",
  "\u2028",
  "\u2029",
  "\ufeff",
  "\u00a0",
  "\u0000",
  "\u001f",
  "\u007f",
];
const STATUSES: VerdictStatus[] = ["valid", "invalid", "expired", "unsigned", "no-secret"];

/** A generated record and the body bytes it was built from. */
export interface CorpusRecord {
  event: CapturedEvent;
  body: Uint8Array;
}

/** The parts of a raw HTTP request, for the test through the receiver. */
export interface RawRequest {
  query: string;
  headers: [string, string][];
  body: Uint8Array;
}

/** A generator of records from one seed; `.request()` gives the parts of a raw request instead. */
export function recordCorpus(seed: number): (() => CorpusRecord) & { request(): RawRequest } {
  const random = seeded(seed);
  const int = (n: number) => Math.floor(random() * n);
  const pick = <T>(list: readonly T[]): T => list[int(list.length)]!;
  const chance = (p: number) => random() < p;
  const from = (alphabet: string, max: number) => {
    let s = "";
    for (let i = int(max + 1); i > 0; i--) s += alphabet[int(alphabet.length)];
    return s;
  };
  /** Text of any kind: ASCII with JSON's escapes, Unicode (astral too), control characters. */
  const text = (max: number) => {
    let s = "";
    for (let i = int(max + 1); i > 0; i--) {
      s += chance(0.8) ? ASCII_TEXT[int(ASCII_TEXT.length)] : pick(UNICODE);
    }
    return s;
  };
  /** A header value as Deno.serve gives it: a byte string (latin1 bytes past ASCII, tabs, quotes). */
  const byteString = (max: number) => {
    let s = "";
    for (let i = int(max + 1); i > 0; i--) {
      s += chance(0.85) ? ASCII_TEXT[int(ASCII_TEXT.length)] : String.fromCharCode(0x80 + int(0x80));
    }
    return s;
  };
  const oddCase = (name: string) =>
    [...name].map((c) => (chance(0.5) ? c.toUpperCase() : c.toLowerCase())).join("");
  const body = (): Uint8Array => {
    switch (int(8)) {
      case 0:
        return new Uint8Array(0);
      case 1: { // random bytes: almost always invalid UTF-8, stored as base64
        const b = new Uint8Array(int(600));
        for (let i = 0; i < b.length; i++) b[i] = int(256);
        return b;
      }
      case 2: // a short ASCII body (the receiver's path without the decoder), control bytes included
        return Uint8Array.from({ length: int(257) }, () => int(128));
      case 3: // invalid UTF-8 hidden in text: a lone surrogate's bytes, a cut sequence
        return new Uint8Array([
          ...new TextEncoder().encode(text(40)),
          ...pick([[0xed, 0xa0, 0x80], [0xf0, 0x9f], [0xc3], [0xff]]),
        ]);
      case 4: { // JSON, long enough to take the long-string path
        const value = { ref: text(20), n: int(1e9), list: Array.from({ length: int(40) }, () => text(30)) };
        return new TextEncoder().encode(JSON.stringify(value));
      }
      case 5: // form-encoded
        return new TextEncoder().encode(`payload=${encodeURIComponent(text(200))}&token=${from(TOKEN, 20)}`);
      case 6: // text with a BOM, astral characters and controls
        return new TextEncoder().encode("\ufeff" + text(400));
      default: // a large body now and then
        return new TextEncoder().encode(text(chance(0.1) ? 70_000 : 2000));
    }
  };
  const verdict = (): Verdict => {
    const v: Verdict = { status: pick(STATUSES) };
    if (chance(0.7)) v.scheme = pick(["github-sha256", "stripe-v1", "standard-webhooks", "slack-v0"]);
    if (chance(0.5)) v.reason = text(60);
    return v;
  };
  const next = (): CorpusRecord => {
    const headers: [string, string][] = [];
    for (let i = int(16); i > 0; i--) {
      const name = chance(0.3) && headers.length > 0 ? oddCase(pick(headers)[0]) : from(TOKEN, 24) || "x";
      headers.push([name, chance(0.15) ? "" : byteString(80)]);
    }
    const bytes = body();
    const event = buildEvent({
      id: `evt_2026${String(1 + int(12)).padStart(2, "0")}28_01J${
        from("0123456789ABCDEFGHJKMNPQRSTVWXYZ", 23)
      }`,
      endpoint: chance(0.9) ? from(TOKEN, 12) || "default" : text(10),
      receivedAt: new Date(int(4e12)),
      method: pick(["POST", "GET", "PUT", "PATCH", "DELETE", "HEAD", "PROPFIND"]),
      path: "/" + from(TOKEN + "/%", 40),
      query: chance(0.5) ? "" : from(TOKEN + '=&%+"\\', 60),
      headers,
      body: bytes,
      remoteAddr: pick(["127.0.0.1", "::1", "unix", "", "203.0.113.9"]),
    });
    // The optional fields, in the receiver's order of adding them (src/receiver/handler.ts), or shuffled.
    const adds: (() => void)[] = [
      () =>
        chance(0.4) &&
        (event.forward = { to: "http://localhost:3000/" + from(TOKEN, 8), mode: pick(["queue", "relay"]) }),
      () => chance(0.3) && (event.params = { provider: from(TOKEN, 8), [text(4)]: text(8) }),
      () => {
        if (chance(0.2)) (event.v = 2), (event.merged = ["cookie"]);
      },
      () => {
        if (chance(0.1)) {
          event.v = 2;
          event.hub = {
            channel: from(TOKEN, 10),
            seq: int(1e6),
            receivedAt: new Date(int(4e12)).toISOString(),
          };
        }
      },
      () => chance(0.6) && (event.provider = pick(["github", "stripe", "slack", text(6)])),
      () => chance(0.5) && (event.type = pick(["push", "invoice.paid", text(12)])),
      () => chance(0.7) && (event.verdict = verdict()),
      () => {
        if (event.forward !== undefined && chance(0.5)) {
          event.forward.targets = Array.from({ length: int(3) }, () => from(TOKEN, 8));
        }
      },
      () => {
        if (chance(0.15)) {
          event.response = {
            status: pick([200, 401, 202]),
            source: pick(["challenge", "custom", "enforce"]),
          };
          if (chance(0.5)) {
            event.response.headers = [["content-type", "text/plain"], [from(TOKEN, 6), byteString(10)]];
          }
          if (chance(0.5)) event.response.body = text(40);
          if (chance(0.3)) event.response.delayMs = int(5000);
        }
      },
    ];
    if (chance(0.2)) adds.sort(() => random() - 0.5);
    for (const add of adds) add();
    if (chance(0.1)) {
      // As the dev session's trigger marking does: a copy with `v: 2` and `trigger` (sometimes left undefined).
      const mark = chance(0.8)
        ? { event: from(TOKEN, 12), ...(chance(0.5) ? { fault: "duplicate" } : {}), attempt: int(4) }
        : undefined;
      return { event: { ...event, v: 2, trigger: mark } as CapturedEvent, body: bytes };
    }
    return { event, body: bytes };
  };
  const request = (): RawRequest => {
    const headers: [string, string][] = [];
    for (let i = int(12); i > 0; i--) {
      // Repeats in another case; names that cannot be the framing headers (`x-` first).
      const name = chance(0.3) && headers.length > 0 ? oddCase(pick(headers)[0]) : "X-" + from(TOKEN, 20);
      headers.push([name, chance(0.15) ? "" : byteString(80).trim()]);
    }
    return { query: chance(0.5) ? "" : from(TOKEN + "=&%+", 60), headers, body: body() };
  };
  return Object.assign(next, { request });
}

/** A record of `POST /` to endpoint `e` at the epoch with `body` and `headers`: a fixture for one shape. */
export function plainRecord(body: Uint8Array, headers: [string, string][] = []): CapturedEvent {
  return buildEvent({
    id: "evt_20260101_01J00000000000000000000000",
    endpoint: "e",
    receivedAt: new Date(0),
    method: "POST",
    path: "/",
    query: "",
    headers,
    body,
    remoteAddr: "",
  });
}

/** Records whose lines pass a megabyte (a large text body full of escapes, a binary one), then a small one. */
export function largeRecords(): CorpusRecord[] {
  const text = new TextEncoder().encode('{"big":"' + 'é"\\\t'.repeat(400_000) + '"}');
  const binary = new Uint8Array(3 * 1024 * 1024).map((_, i) => (i * 7919) & 0xff);
  return [text, binary, new TextEncoder().encode("small")].map((body) => ({
    event: plainRecord(body, [["X-A", "b"]]),
    body,
  }));
}

export const encoder = new TextEncoder();
export const decoder = new TextDecoder();

/** Where two byte arrays first differ (-1: equal). */
export function firstDifference(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? -1 : n;
}

export function assertSameBytes(got: Uint8Array, expected: Uint8Array, what: string): void {
  const at = firstDifference(got, expected);
  if (at === -1) return;
  const around = (b: Uint8Array) => decoder.decode(b.subarray(Math.max(0, at - 40), at + 40));
  assert.fail(`${what}: differs at byte ${at}: ${around(got)} against ${around(expected)}`);
}

/** Sends one raw HTTP/1.1 request (header bytes exactly as given, latin1) and reads the status line. */
export async function send(port: number, req: RawRequest, path = "/hook"): Promise<string> {
  const head =
    `POST ${path}${req.query === "" ? "" : "?" + req.query} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
    req.headers.map(([k, v]) => `${k}: ${v}\r\n`).join("") +
    `Content-Length: ${req.body.length}\r\nConnection: close\r\n\r\n`;
  const bytes = new Uint8Array(head.length + req.body.length);
  for (let i = 0; i < head.length; i++) bytes[i] = head.charCodeAt(i); // latin1: one byte per character
  bytes.set(req.body, head.length);
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    let off = 0;
    while (off < bytes.length) off += await conn.write(bytes.subarray(off));
    const answer = new Uint8Array(64 * 1024);
    let got = 0;
    for (;;) {
      const n = await conn.read(answer.subarray(got));
      if (n === null) break;
      got += n;
    }
    return decoder.decode(answer.subarray(0, got)).split("\r\n")[0]!;
  } finally {
    conn.close();
  }
}

/** A record-line batcher under test: the shipped one (src/event/record_line.ts) or the bench's candidate. */
export interface LineBatcher {
  LineBuffer: new () => { add(event: CapturedEvent): void; take(): Uint8Array };
  /** What to do with a record's body bytes before it is added, in round `round` (the candidate keeps them). */
  prepare?: (event: CapturedEvent, body: Uint8Array, round: number) => void;
}

/**
 * The batch tests every encoder of the log's lines must pass, one contract for both: each batch is its lines'
 * `eventLine` bytes in order, in reused buffers that leave the batch taken before untouched; a record
 * `JSON.stringify` refuses leaves nothing; a line past a megabyte is the same bytes.
 */
export function lineBatcherContract({ LineBuffer, prepare = () => {} }: LineBatcher): void {
  Deno.test("a batch of lines is each line's bytes in order, batch after batch in reused buffers", () => {
    const next = recordCorpus(7);
    const lines = new LineBuffer();
    let previous: Uint8Array | undefined;
    let previousCopy: Uint8Array | undefined;
    for (let batch = 0; batch < 40; batch++) {
      const records = Array.from({ length: 1 + (batch % 6) * 5 }, next);
      for (const { event, body } of records) {
        prepare(event, body, batch);
        lines.add(event);
      }
      const taken = lines.take();
      assertSameBytes(
        taken,
        encoder.encode(records.map((r) => eventLine(r.event)).join("")),
        `batch ${batch}`,
      );
      // The batch taken before (being written while this one filled) was not touched.
      if (previous !== undefined) {
        assertSameBytes(previous, previousCopy!, `batch ${batch - 1} after the next`);
      }
      previous = taken;
      previousCopy = taken.slice();
    }
  });

  Deno.test("a record that JSON.stringify refuses leaves nothing in the batch", () => {
    const lines = new LineBuffer();
    const { event } = recordCorpus(3)();
    lines.add(event);
    const bad = { ...event, hub: { channel: "c", seq: 1n, receivedAt: "" } } as unknown as CapturedEvent;
    assert.throws(() => lines.add(bad), TypeError);
    assertSameBytes(lines.take(), encoder.encode(eventLine(event)), "the batch");
  });

  Deno.test("a line past a megabyte (a large body, text or binary) is the same bytes", () => {
    const lines = new LineBuffer();
    const expected: string[] = [];
    for (const { event, body } of largeRecords()) {
      prepare(event, body, 0);
      lines.add(event);
      expected.push(eventLine(event));
    }
    assertSameBytes(lines.take(), encoder.encode(expected.join("")), "the batch");
  });
}
