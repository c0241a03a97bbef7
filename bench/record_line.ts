/**
 * Issue 36, point 6: what producing the store's line of a received event
 * costs, three ways, on the write side's GitHub push (1.6 KB body, GitHub's
 * headers, a verdict), in batches of 25 lines as group commit forms them:
 *
 * - the writer's way before issue 36: `JSON.stringify` of the record
 *   (`eventLine`), the batch's lines joined, the joined text encoded once;
 * - the writer's way since issue 36 (src/event/record_line.ts): `JSON.stringify`
 *   of the record, each line encoded as it is appended into a buffer reused
 *   batch after batch (`encodeInto`: no joined string, no new buffer per batch);
 * - the candidate of bench/record_line_encoder.ts: `JSON.stringify` of the
 *   record with a sentinel for its body, the body escaped from the bytes it
 *   was decoded from (as the receiver would hand them over) in its place.
 *
 * Then the parts of the line on their own: the body's JSON escaping, the
 * header list's, and loops in JavaScript doing the same. Each way's bytes are
 * checked against the writer's before it is timed. CPU-bound and
 * single-threaded: the minimum over 40 repetitions is reported (the machine
 * is shared).
 *
 *     deno run -A bench/record_line.ts
 * @module
 */
import { buildEvent, type CapturedEvent, encodeBody, eventLine } from "../src/event/record.ts";
import { keepBodyBytes, LineBuffer } from "./record_line_encoder.ts";
import { LineBuffer as WriterLines } from "../src/event/record_line.ts";
import { BODY, githubHeaders } from "./payload.ts";

const BATCH = 25;
const encoder = new TextEncoder();
const fatalDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const lenientDecoder = new TextDecoder("utf-8", { ignoreBOM: true });
const lenientText = (bytes: Uint8Array) => {
  const text = lenientDecoder.decode(bytes);
  return text.includes("\uFFFD") ? undefined : text;
};

/** The record dev stores for the write side's request (header list as Deno.serve gives it). */
export async function benchRecord(): Promise<CapturedEvent> {
  const headers: [string, string][] = [
    ["host", "127.0.0.1:8787"],
    ["content-length", String(BODY.length)],
    ...await githubHeaders(),
  ];
  const event = buildEvent({
    id: "evt_20261128_01JD5Q2Z8W3X4Y5Z6A7B8C9D0E",
    endpoint: "github",
    receivedAt: new Date(),
    method: "POST",
    path: "/webhook",
    query: "",
    headers,
    body: encoder.encode(BODY),
    remoteAddr: "127.0.0.1",
  });
  event.provider = "github";
  event.type = "push";
  event.verdict = { status: "valid", scheme: "github-sha256", reason: "signed with secret #1" };
  return event;
}

/** Microseconds per call of `f` divided by `per`: the least over `reps` timed runs of `n` calls. */
function time(f: () => unknown, n: number, per = 1, reps = 40): number {
  for (let i = 0; i < n * 5; i++) f(); // warm-up: the JIT
  let best = Infinity;
  for (let r = 0; r < reps; r++) {
    const t = performance.now();
    for (let i = 0; i < n; i++) f();
    best = Math.min(best, performance.now() - t);
  }
  return (best * 1000) / n / per;
}

/** A string escaped and written as UTF-8 by a loop (ASCII only: enough for the timing). */
function loopString(s: string, out: Uint8Array, pos: number): number {
  out[pos++] = 0x22;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22 || c === 0x5c) {
      out[pos++] = 0x5c;
      out[pos++] = c;
    } else out[pos++] = c;
  }
  out[pos++] = 0x22;
  return pos;
}

/** The same from the body's bytes (no decoded text at all). */
function loopBytes(b: Uint8Array, out: Uint8Array, pos: number): number {
  out[pos++] = 0x22;
  for (let i = 0; i < b.length; i++) {
    const c = b[i]!;
    if (c === 0x22 || c === 0x5c) {
      out[pos++] = 0x5c;
      out[pos++] = c;
    } else out[pos++] = c;
  }
  out[pos++] = 0x22;
  return pos;
}

/** The rows of the report: label and µs per line (or per call, for the parts). */
export async function measureRecordLine(): Promise<[string, number][]> {
  const event = await benchRecord();
  const events = Array.from({ length: BATCH }, () => ({ ...event }));
  const expected = encoder.encode(events.map(eventLine).join(""));
  const buffer = new Uint8Array(1 << 20);
  const lines = new LineBuffer();
  const writerLines = new WriterLines();

  const writerWay = () => encoder.encode(events.map(eventLine).join(""));
  const encodeIntoWay = () => {
    for (const e of events) writerLines.add(e);
    return writerLines.take();
  };
  const bytes = encoder.encode(event.body);
  const fromBytesWay = () => {
    for (const e of events) {
      const fresh = { ...e }; // as a request's record: the bytes handed over once
      keepBodyBytes(fresh, bytes);
      lines.add(fresh);
    }
    return lines.take();
  };
  /** What a fresh record's copy costs, taken off the line above. */
  const copyOnly = () => {
    let n = 0;
    for (const e of events) n += ({ ...e }).bodySize;
    return n;
  };
  for (
    const [name, way] of [
      ["encodeInto", encodeIntoWay],
      ["from the bytes", fromBytesWay],
    ] as const
  ) {
    const got = way();
    if (got.length !== expected.length || got.some((b, i) => b !== expected[i])) {
      throw new Error(`${name}: not the writer's bytes`);
    }
  }
  return [
    ["before issue 36: JSON.stringify, join, encode (per line)", time(writerWay, 200, BATCH)],
    ["the writer's: JSON.stringify, encodeInto a reused buffer (per line)", time(encodeIntoWay, 200, BATCH)],
    [
      "the candidate: the body from its bytes (per line)",
      time(fromBytesWay, 200, BATCH) - time(copyOnly, 200, BATCH),
    ],
    ["part: JSON.stringify(record) alone", time(() => JSON.stringify(event), 5000)],
    ["part: JSON.stringify(body), 1.6 KB", time(() => JSON.stringify(event.body), 5000)],
    ["part: a loop escaping the body's text into bytes", time(() => loopString(event.body, buffer, 0), 5000)],
    ["part: a loop escaping the body's bytes", time(() => loopBytes(bytes, buffer, 0), 5000)],
    ["part: JSON.stringify(headers), 11 headers", time(() => JSON.stringify(event.headers), 5000)],
    [
      "part: JSON.stringify(record), then TextEncoder.encode",
      time(() => encoder.encode(eventLine(event)), 5000),
    ],
    // The record's text of the body (src/event/record.ts encodeBody): the fatal decoder it used alone before
    // the eighth round, and the lenient one it asks first now.
    ["part: the body decoded, fatal UTF-8 decoder", time(() => fatalDecoder.decode(bytes), 5000)],
    ["part: the body decoded, lenient decoder, U+FFFD looked for", time(() => lenientText(bytes), 5000)],
    ["part: encodeBody(body), as the record is built", time(() => encodeBody(bytes), 5000)],
  ];
}

if (import.meta.main) {
  const rows = await measureRecordLine();
  // deno-lint-ignore no-console
  console.log(
    [
      "| the line of one GitHub push | µs |",
      "|---|---:|",
      ...rows.map(([k, v]) => `| ${k} | ${v.toFixed(2)} |`),
    ]
      .join("\n"),
  );
}
