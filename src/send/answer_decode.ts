/**
 * The app's compressed answer, decoded for the delivery record: an answer
 * with `Content-Encoding: gzip` (or `x-gzip`, `deflate`, `br`) is bytes no
 * one can read, so the record keeps its decoded start instead, and says so
 * (`decodedFrom`). What the sender gets in relay mode is the answer as it came
 * (./forwarder.ts); only the record and the views are decoded. The output is
 * bounded (a small compressed body may expand a thousandfold): gzip and
 * deflate go to `DecompressionStream` in small slices, and decoding stops once
 * `max` bytes came out. Brotli does not go there: a few bytes of it may stand
 * for many megabytes (841 B for 1 GiB of zeros), and `DecompressionStream`
 * expands each slice whole (2.1 GB of memory for that answer), so it goes to
 * node:zlib's stream, which hands its output over in 16 KiB pieces.
 * @module
 */
import { concatBytes } from "../bytes.ts";

/** The formats hooktap decodes, by `Content-Encoding` token (`brotli` goes to node:zlib). */
const FORMATS: Record<string, CompressionFormat | "brotli"> = {
  "gzip": "gzip",
  "x-gzip": "gzip",
  "deflate": "deflate",
  "br": "brotli",
};

/** Input fed to the decoder at once: bounds what one write can expand to (16 KiB × 1032 at worst). */
const SLICE = 16 * 1024;

/** A decoded answer body. */
export interface DecodedAnswer {
  /** The `Content-Encoding` it was decoded from, as the app wrote it (`gzip`). */
  from: string;
  /** The decoded bytes, `max` at most. */
  bytes: Uint8Array;
  /** Decoding ended early: more than `max` bytes, a body that was cut, or bytes that do not decode. */
  partial: boolean;
}

/** The one content coding of `headers` hooktap can decode, if the answer has exactly one. */
export function contentCoding(headers: readonly [string, string][]): string | undefined {
  let coding: string | undefined;
  // By index, no destructuring: an iterator per header otherwise, on every forwarded answer.
  for (let i = 0; i < headers.length; i++) {
    const name = headers[i]![0];
    if (name.length !== 16 || name.toLowerCase() !== "content-encoding") continue;
    const token = headers[i]![1].trim().toLowerCase();
    if (token === "" || token === "identity") continue;
    if (coding !== undefined || !(token in FORMATS)) return undefined; // several codings, or one unknown
    coding = token;
  }
  return coding;
}

/**
 * `body` decoded from the answer's `Content-Encoding`, at most `max` bytes; `undefined` when the answer has
 * no coding hooktap decodes, or nothing of it decodes (the record then keeps the bytes as they came).
 */
export async function decodeAnswer(
  headers: readonly [string, string][],
  body: Uint8Array,
  max: number,
): Promise<DecodedAnswer | undefined> {
  const coding = contentCoding(headers);
  if (coding === undefined || body.length === 0) return undefined;
  const format = FORMATS[coding]!;
  const { bytes, partial } = format === "brotli"
    ? await brotliStart(body, max)
    : await streamStart(format, body, max);
  // Nothing decoded: bytes that are not of this coding. (Deno's node:zlib ends a Brotli stream that is cut or
  // not Brotli at all without an error, so for Brotli an empty result says it.)
  if (bytes.length === 0 && (partial || format === "brotli")) return undefined;
  return { from: coding, bytes, partial };
}

/** The start of a gzip or deflate body, `max` bytes at most, through `DecompressionStream` in slices. */
async function streamStart(
  format: CompressionFormat,
  body: Uint8Array,
  max: number,
): Promise<{ bytes: Uint8Array; partial: boolean }> {
  const stream = new DecompressionStream(format);
  const writer = stream.writable.getWriter();
  const reader = stream.readable.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  let partial = false;
  const feed = (async () => {
    for (let at = 0; at < body.length; at += SLICE) {
      await writer.write(body.subarray(at, at + SLICE) as Uint8Array<ArrayBuffer>);
    }
    await writer.close();
  })();
  feed.catch(() => {}); // its error is the reader's too
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      const room = max - size;
      if (value.length >= room) {
        parts.push(value.subarray(0, room));
        size += room;
        partial = true; // at the cap: what follows is not read (exactly `max` bytes is said cut too)
        break;
      }
      parts.push(value);
      size += value.length;
    }
  } catch {
    partial = true; // cut (the answer was longer than what was read) or damaged: what decoded is kept
  }
  await reader.cancel().catch(() => {});
  await writer.abort().catch(() => {});
  return { bytes: concatBytes(parts), partial };
}

/** The start of a Brotli body, `max` bytes at most: node:zlib's stream, ended once `max` bytes came out. */
async function brotliStart(body: Uint8Array, max: number): Promise<{ bytes: Uint8Array; partial: boolean }> {
  const zlib = await import("node:zlib"); // dynamic: dev starts without a node: module
  const decoder = zlib.createBrotliDecompress({ chunkSize: SLICE });
  const parts: Uint8Array[] = [];
  let size = 0;
  const partial = await new Promise<boolean>((resolve) => {
    decoder.on("data", (chunk: Uint8Array) => {
      const room = max - size;
      if (room <= 0) return; // after the cap, before the stream is gone
      if (chunk.length >= room) {
        parts.push(chunk.subarray(0, room));
        size += room;
        decoder.destroy(); // at the cap (exactly `max` bytes is said cut too): the rest is not decoded
        resolve(true);
        return;
      }
      parts.push(chunk);
      size += chunk.length;
    });
    decoder.on("error", () => resolve(true)); // cut or damaged: what decoded is kept
    decoder.on("end", () => resolve(false));
    decoder.end(body);
  });
  // Deno's node:zlib (2.9) ends a cut Brotli stream as if whole; `DecompressionStream` says it. Ended under
  // `max`, the body decodes to fewer than `max` bytes, so this second decoding is bounded by it too.
  if (!partial && size > 0 && !(await brotliWhole(body))) return { bytes: concatBytes(parts), partial: true };
  return { bytes: concatBytes(parts), partial };
}

/** Whether `body` is a whole Brotli stream (one that decodes to few bytes: see brotliStart). */
async function brotliWhole(body: Uint8Array): Promise<boolean> {
  const stream = new Blob([body as Uint8Array<ArrayBuffer>]).stream()
    .pipeThrough(new DecompressionStream("brotli" as CompressionFormat));
  try {
    for await (const _ of stream) { /* only whether it ends well */ }
    return true;
  } catch {
    return false;
  }
}
