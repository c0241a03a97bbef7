/**
 * The store's lines as bytes, encoded as each record is appended into a
 * batch's buffer that is reused batch after batch: the same bytes as
 * `TextEncoder.encode(JSON.stringify(event) + "\n")` ({@linkcode eventLine}),
 * without the batch's lines kept as strings until the batch is written,
 * joined into one string and encoded into a new buffer each batch.
 *
 * V8's `JSON.stringify` stays the serializer: measured on Deno 2.9
 * (bench/record_line.ts, BENCHMARKS.md "Issue 36, point 6"), encoders written
 * in JavaScript, field by field or with the body escaped from its bytes, cost
 * as much or more. src/event/record_line_test.ts checks the bytes on a
 * generated corpus of every stored shape and on records the receiver made
 * from real requests.
 * @module
 */
import type { CapturedEvent } from "./record.ts";
// deno-lint-ignore no-unused-vars
import type { eventLine } from "./record.ts";

const encoder = new TextEncoder();

/** The first capacity of a buffer. */
const START = 64 * 1024;
/** A buffer grown past this is not reused once its batch is taken (a large event's bytes are not kept). */
const KEEP = 4 * 1024 * 1024;
/**
 * A line longer than this (a large body) is encoded to its exact size, not into room for the worst case
 * (3 bytes per UTF-16 unit): a 30 MiB body needs 30 MiB more, not 90.
 */
const LARGE = 1024 * 1024;

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
   * nothing, when `JSON.stringify` does (a `BigInt`, a cycle).
   */
  add(event: CapturedEvent): void {
    const text = JSON.stringify(event);
    if (text.length > LARGE) {
      const bytes = encoder.encode(text);
      this.#ensure(bytes.length + 1);
      this.#buf.set(bytes, this.#pos);
      this.#pos += bytes.length;
    } else {
      this.#ensure(text.length * 3 + 1);
      this.#pos += encoder.encodeInto(text, this.#buf.subarray(this.#pos)).written;
    }
    this.#buf[this.#pos++] = 0x0a;
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
