/**
 * Issue 36, point 6: a candidate encoder of the store's lines, measured and
 * not adopted (BENCHMARKS.md, "Issue 36, point 6"). For each record it writes
 * the same bytes as `TextEncoder.encode(JSON.stringify(event) + "\n")` (the
 * record's {@linkcode eventLine}) straight into a batch's buffer, reused batch
 * after batch: without the line as a string when the body's bytes are handed
 * over, and without joining a batch's lines into one string to encode it.
 *
 * The fastest way found on V8 15 (Deno 2.9), bench/record_line.ts: V8's own
 * serializer for everything but the body (field-by-field encoders written in
 * JavaScript lost to it, short strings included), and the body written from
 * the bytes it was decoded from, escaping only what `JSON.stringify` escapes.
 * The body's place in the serializer's output is found by a per-process
 * sentinel written as the body: the record's own key order and every other
 * field are the serializer's. bench/record_line_test.ts checks the bytes on a
 * generated corpus and on records made by the receiver from real requests.
 *
 * Why not adopted: it costs what the writer's way costs (~4.3 µs a line
 * either way for the 1.6 KB GitHub push), and dev's CPU per request did not
 * move with it in paired runs; writing no record at all saves only ~6–8 µs
 * of dev's ~50–80. The escaping is at V8's floor; the gap to the durable
 * ceiling is mostly elsewhere.
 * @module
 */
import type { CapturedEvent } from "../src/event/record.ts";
// deno-lint-ignore no-unused-vars
import type { eventLine } from "../src/event/record.ts";

const encoder = new TextEncoder();

/** The first capacity of a buffer. */
const START = 64 * 1024;
/** A buffer grown past this is not reused once its batch is taken (a large event's bytes are not kept). */
const KEEP = 4 * 1024 * 1024;
/**
 * A line longer than this (a large body) is encoded to its exact size, not into room for the worst case
 * (3 bytes per UTF-16 unit of text, 6 per byte of body): a 30 MiB body needs 30 MiB more, not 180.
 */
const LARGE = 1024 * 1024;

const HEX = "0123456789abcdef";

/**
 * Written as the body while the rest of the record is serialized: letters
 * and digits only, random per process. The body's place is where it stands
 * as a whole string value after `"body":`; found anywhere else first (a
 * header that holds it) or found twice (a field whose value is the sentinel
 * itself), the line is serialized whole instead. Searched for alone: V8
 * finds it ~5× faster than a pattern that starts with a quote.
 */
const SENTINEL = "Zq" + crypto.randomUUID().replaceAll("-", "").slice(0, 22);
const KEY = '"body":"';

/** The bytes of records' bodies, handed over by the receiver until their lines are encoded. */
const bodyBytes = new WeakMap<object, Uint8Array>();

/**
 * Hands the encoder the bytes `event.body` was decoded from, so its line is
 * written from them ({@linkcode LineBuffer.add}) instead of escaping the
 * text and encoding it again. Kept beside the record, not in it (neither
 * JSON nor a copy nor a deep comparison sees them) and dropped once the line
 * is encoded. Only for a record whose `body` is these bytes as `utf8` text;
 * for anything else it does nothing.
 */
export function keepBodyBytes(event: CapturedEvent, bytes: Uint8Array): void {
  if (event.bodyEncoding === "utf8" && event.bodySize === bytes.length && bytes.length > 0) {
    bodyBytes.set(event, bytes);
  }
}

/** The body's bytes kept by {@linkcode keepBodyBytes}, dropped as they are taken. */
function takeBodyBytes(event: CapturedEvent): Uint8Array | undefined {
  const bytes = bodyBytes.get(event);
  if (bytes === undefined) return undefined;
  bodyBytes.delete(event);
  // Still the record's own body: its utf8 text, of the same size.
  return event.bodyEncoding === "utf8" && event.bodySize === bytes.length ? bytes : undefined;
}

/**
 * A growable byte buffer that event lines are appended to, one batch at a
 * time: {@linkcode LineBuffer.take} hands the batch's bytes over and starts
 * the next batch in a second buffer, so a batch being written to disk is
 * never touched by the appends that arrive meanwhile.
 */
export class LineBuffer {
  #buf = new Uint8Array(START);
  #spare: Uint8Array<ArrayBuffer> | null = null;
  #pos = 0;

  /** Bytes in the current batch. */
  get length(): number {
    return this.#pos;
  }

  /**
   * Appends the line of `event` (its JSON and a newline). Throws, adding
   * nothing, when `JSON.stringify` would (a `BigInt`, a cycle).
   */
  add(event: CapturedEvent): void {
    const start = this.#pos;
    try {
      const bytes = takeBodyBytes(event);
      if (bytes === undefined || bytes.length > LARGE || !this.#spliced(event, bytes)) {
        this.#text(JSON.stringify(event));
      }
      this.#ensure(1);
      this.#buf[this.#pos++] = 0x0a;
    } catch (error) {
      this.#pos = start; // nothing half-encoded stays in the batch
      throw error;
    }
  }

  /**
   * The current batch's bytes (valid until the next `take`), and a new
   * empty batch. The bytes stay untouched while the next batch fills.
   */
  take(): Uint8Array<ArrayBuffer> {
    const out = this.#buf.subarray(0, this.#pos);
    const next = this.#spare ?? new Uint8Array(START);
    this.#spare = this.#buf.length <= KEEP ? this.#buf : null;
    this.#buf = next;
    this.#pos = 0;
    return out;
  }

  /** The record serialized with the sentinel as its body, the body's bytes written in its place. */
  #spliced(event: CapturedEvent, bytes: Uint8Array): boolean {
    const text = event.body;
    let json: string;
    event.body = SENTINEL;
    try {
      json = JSON.stringify(event);
    } finally {
      event.body = text;
    }
    const at = json.indexOf(SENTINEL);
    const end = at + SENTINEL.length;
    if (
      at < KEY.length || !json.startsWith(KEY, at - KEY.length) || json.charCodeAt(end) !== 0x22 ||
      json.indexOf(SENTINEL, end) !== -1
    ) return false;
    this.#text(json.slice(0, at - 1)); // up to `"body":`
    this.#utf8Bytes(bytes);
    this.#text(json.slice(end + 1)); // past the closing quote
    return true;
  }

  #ensure(n: number): void {
    if (this.#pos + n <= this.#buf.length) return;
    // Doubling for the common lines; a large one gets what it needs and no more.
    const size = n > LARGE || this.#pos > LARGE
      ? this.#pos + n + START
      : Math.max(this.#buf.length * 2, this.#pos + n);
    const grown = new Uint8Array(size);
    grown.set(this.#buf.subarray(0, this.#pos));
    this.#buf = grown;
  }

  /** Text UTF-8 encoded (at most 3 bytes per UTF-16 unit). */
  #text(text: string): void {
    if (text.length > LARGE) {
      const bytes = encoder.encode(text);
      this.#ensure(bytes.length);
      this.#buf.set(bytes, this.#pos);
      this.#pos += bytes.length;
      return;
    }
    this.#ensure(text.length * 3);
    this.#pos += encoder.encodeInto(text, this.#buf.subarray(this.#pos)).written;
  }

  /**
   * The JSON string of a body given as its bytes, valid UTF-8 (the body a
   * record stores as `utf8`): the bytes themselves but for the ones
   * `JSON.stringify` escapes (`"`, `\`, control characters). Decoding gave
   * the text one code point per UTF-8 sequence and encoding gives the same
   * sequences back, so no text is needed (a lone surrogate, the other thing
   * `JSON.stringify` escapes, has no valid UTF-8).
   */
  #utf8Bytes(bytes: Uint8Array): void {
    this.#ensure(bytes.length * 6 + 2);
    this.#pos = writeUtf8Bytes(this.#buf, this.#pos, bytes);
  }
}

/** {@linkcode LineBuffer}'s `#utf8Bytes` at `pos` of `buf` (large enough); the new position. */
function writeUtf8Bytes(buf: Uint8Array, pos: number, bytes: Uint8Array): number {
  buf[pos++] = 0x22;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (c === 0x22 || c === 0x5c) {
      buf[pos++] = 0x5c;
      buf[pos++] = c;
    } else if (c >= 0x20) buf[pos++] = c;
    else pos = escapeControl(buf, pos, c);
  }
  buf[pos++] = 0x22;
  return pos;
}

/** Writes `JSON.stringify`'s escape of a control character (below 0x20); the new position. */
function escapeControl(buf: Uint8Array, pos: number, c: number): number {
  buf[pos++] = 0x5c;
  if (c === 0x0a) buf[pos++] = 0x6e; // \n
  else if (c === 0x0d) buf[pos++] = 0x72; // \r
  else if (c === 0x09) buf[pos++] = 0x74; // \t
  else if (c === 0x08) buf[pos++] = 0x62; // \b
  else if (c === 0x0c) buf[pos++] = 0x66; // \f
  else {
    buf[pos++] = 0x75; // \u00XX, lower-case hex
    buf[pos++] = 0x30;
    buf[pos++] = 0x30;
    buf[pos++] = HEX.charCodeAt(c >> 4);
    buf[pos++] = HEX.charCodeAt(c & 15);
  }
  return pos;
}

/**
 * The line of `event` as bytes: the same as
 * `new TextEncoder().encode(eventLine(event))`.
 */
export function encodeLine(event: CapturedEvent): Uint8Array {
  const lines = new LineBuffer();
  lines.add(event);
  return lines.take().slice();
}
