/**
 * Reads a request body with a cap, so memory never holds more than the
 * limit, whatever `Content-Length` says or however the body is chunked.
 * @module
 */
import { concatBytes } from "../bytes.ts";
import type { BodyBudget } from "./budget.ts";
import type { IncomingRequest } from "./request.ts";
import { drainDeclared, type RestOfBody } from "./over_limit.ts";
import type { StallWatch } from "./stall.ts";

/** The body was larger than the limit. */
export class BodyTooLargeError extends Error {
  /**
   * @param rest what became of the rest of the body (./over_limit.ts): its 413 goes out complete unless it
   *   was given up.
   */
  constructor(readonly limit: number, readonly rest: RestOfBody = "given up") {
    super(`Request body is larger than ${limit} bytes.`);
    this.name = "BodyTooLargeError";
  }
}

/** Shutdown stopped waiting for the body (the request gets a retryable 503). */
export class BodyCutOffError extends Error {
  constructor() {
    super("hooktap is shutting down and stopped waiting for the rest of the body.");
    this.name = "BodyCutOffError";
  }
}

/**
 * The headers announce a body the server gives no access to (Deno.serve
 * hides the bodies of GET and HEAD requests): never store it as empty.
 */
export class BodyUnreadableError extends Error {
  constructor() {
    super("The request announces a body that this server cannot read.");
    this.name = "BodyUnreadableError";
  }
}

const EMPTY = new Uint8Array(0);

/**
 * A body that declares at most this many bytes is read in one piece by the
 * runtime (`arrayBuffer()`): one op instead of a stream read per chunk, about
 * a sixth of dev's CPU per webhook (BENCHMARKS.md). The runtime sizes that
 * buffer from the declared length before the bytes arrive, so the declared
 * length is charged to the budget first: memory stays bounded by the budget
 * whatever clients declare or withhold. Larger bodies, and chunked ones, go
 * through the stream reader, which commits memory only as bytes arrive.
 */
export const WHOLE_READ_MAX = 64 * 1024;

/** The reads each shutdown signal ends: one `abort` listener per signal, not one per request. */
const cutOffReads = new WeakMap<AbortSignal, Set<(error: Error) => void>>();

/** Calls `fail` when `signal` aborts, until {@linkcode _unwatchCutOff}. */
function _watchCutOff(signal: AbortSignal, fail: (error: Error) => void): void {
  let reads = cutOffReads.get(signal);
  if (reads === undefined) {
    const all = new Set<(error: Error) => void>();
    signal.addEventListener("abort", () => {
      for (const end of all) end(new BodyCutOffError());
      all.clear();
    }, { once: true });
    cutOffReads.set(signal, all);
    reads = all;
  }
  reads.add(fail);
}

function _unwatchCutOff(signal: AbortSignal, fail: (error: Error) => void): void {
  cutOffReads.get(signal)?.delete(fail);
}

/**
 * The buffers of bodies {@linkcode readBody} read into memory of their own
 * (the runtime's `arrayBuffer()` of a web `Request`, the blocks of a BYOB
 * read): nothing else holds them, so {@linkcode releaseBody} may free them.
 */
const owned = new WeakSet<ArrayBufferLike>();

/**
 * Frees the memory of a body {@linkcode readBody} returned, once the request
 * is done with it (its bytes are then gone: the view reads as empty). A body
 * buffer is native memory V8 frees only at its next collection of the young
 * generation: under a burst of requests thousands of them wait for it, and
 * the allocator keeps the high-water mark for the life of the process.
 * A buffer `readBody` does not own alone (a chunk node:http handed over) is
 * left as it is.
 */
export function releaseBody(body: Uint8Array): void {
  const buffer = body.buffer;
  if (owned.delete(buffer)) (buffer as ArrayBuffer).transfer(0);
}

/** Options of {@linkcode readBody}. */
export interface ReadBodyOptions {
  /** A `Transfer-Encoding` header is present. */
  chunked?: boolean;
  /** Aborted when shutdown stops waiting for bodies. */
  cutOff?: AbortSignal | undefined;
  /** The bound on the bytes of all bodies in flight; charged as bytes arrive. */
  budget?: BodyBudget | undefined;
  /** The body-inactivity watch. */
  stall?: StallWatch | undefined;
}

/**
 * Reads the whole body of `request`, at most `limit` bytes. A body that
 * declares at most {@linkcode WHOLE_READ_MAX} bytes is read whole, its declared
 * length charged to the budget first; any other goes through the stream
 * reader: memory is committed as bytes arrive, never from the declared
 * `Content-Length` (a client declaring 25 MiB and sending one byte costs one
 * byte). `declared` is that header (`null` when absent), read once
 * by the caller; a declared length over the limit is refused without keeping
 * a byte (the body read and dropped first when that is cheap: ./over_limit.ts).
 * The bytes read stay charged to `options.budget`: the caller releases
 * `body.length` once the request is done. On an error nothing stays charged.
 * @throws {BodyTooLargeError} when the body is larger than `limit`.
 * @throws {BodyUnreadableError} when a body is announced but `request.body` is `null`.
 * @throws {BodyCutOffError} when `cutOff` aborts before the body is complete.
 * @throws {BodyBudgetError} when the bodies in flight would pass the budget (their bytes, or their count:
 *   the body is counted while it is read).
 * @throws {BodyStalledError} when the body stops arriving for longer than the watch allows.
 * @throws the stream's own error when the client goes away mid-body.
 */
export async function readBody(
  request: IncomingRequest,
  limit: number,
  declared: string | null,
  options: ReadBodyOptions = {},
): Promise<Uint8Array> {
  if (declared !== null && Number(declared) > limit) {
    // The rest drained when cheap, left to a sender that waits for a go-ahead, else given up before the
    // answer goes out (./over_limit.ts). A drain is a body being read: counted as one. With no room for it,
    // the rest is given up: still a 413 (a 503 "busy, retry" would have the sender retry a body never taken).
    try {
      options.budget?.enter();
    } catch {
      await request.body?.cancel().catch(() => {});
      throw new BodyTooLargeError(limit, "given up");
    }
    let rest: RestOfBody;
    try {
      rest = await drainDeclared(request, Number(declared), limit, options.cutOff);
    } finally {
      options.budget?.leave();
    }
    throw new BodyTooLargeError(limit, rest);
  }
  const n = declared === null || options.chunked ? NaN : Number(declared);
  // A small declared body goes to `arrayBuffer()` without `request.body` being asked first: on Deno.serve
  // the getter makes the body's stream, and `arrayBuffer()` then reads through it chunk by chunk instead
  // of in one op; under a burst that garbage alone kept ~20 MB more of dev's RSS (issue 36.5). A hidden
  // body (`body` null) reads as empty there and is told apart after the read (`_readWhole`).
  const whole = Number.isInteger(n) && n >= 0 && n <= WHOLE_READ_MAX;
  if ((!whole || n === 0) && request.body === null) {
    if (options.chunked || (declared !== null && Number(declared) !== 0)) throw new BodyUnreadableError();
    return EMPTY;
  }
  const { cutOff, budget } = options;
  if (cutOff?.aborted) throw new BodyCutOffError();
  budget?.enter();
  try {
    if (whole) return await _readWhole(request, n, limit, options);
    return await _readStream(request.body!, limit, options);
  } finally {
    budget?.leave();
  }
}

/** A body through the stream reader: memory committed as bytes arrive. */
async function _readStream(
  body: ReadableStream<Uint8Array>,
  limit: number,
  { cutOff, budget, stall, chunked }: ReadBodyOptions,
): Promise<Uint8Array> {
  // A byte stream (Deno.serve's) is read into blocks this reader owns (BYOB): no buffer per chunk. Any other
  // stream (node:http's, a test's) through the default reader, its small chunks copied (see BodyBytes).
  let byob: ReadableStreamBYOBReader | undefined;
  try {
    byob = body.getReader({ mode: "byob" });
  } catch { /* not a byte stream */ }
  const reader = byob ?? body.getReader();
  // Shutdown or a stall ends the read by cancelling the reader (a pending read then resolves as done) after
  // noting why: no promise raced per read, so a small body costs what the plain reader costs.
  let failure: Error | undefined;
  const fail = (error: Error) => {
    failure ??= error;
    reader.cancel().catch(() => {});
  };
  if (cutOff !== undefined) _watchCutOff(cutOff, fail);
  const watched = stall === undefined
    ? undefined
    : { last: performance.now(), fail, chunked: chunked === true };
  if (watched !== undefined) stall!.add(watched);
  const kept = new BodyBytes();
  let size = 0;
  try {
    for (;;) {
      let n: number;
      if (byob !== undefined) {
        const { done, value } = await byob.read(kept.room());
        if (value !== undefined) kept.filled(value);
        if (failure !== undefined) throw failure;
        if (done) break;
        n = value.length;
      } else {
        const { done, value } = await (reader as ReadableStreamDefaultReader<Uint8Array>).read();
        if (failure !== undefined) throw failure;
        if (done) break;
        n = value.length;
        if (size + n <= limit) kept.add(value);
      }
      if (watched !== undefined) watched.last = performance.now();
      if (size + n > limit) throw new BodyTooLargeError(limit);
      budget?.charge(n);
      size += n;
    }
  } catch (error) {
    budget?.release(size);
    // Too large: the rest is given up before the 413 goes out (see readBody: one `connection: close`); a
    // chunked body's rest is never drained (./over_limit.ts). Other errors end a read that may still wait in
    // the runtime: not waited for.
    if (error instanceof BodyTooLargeError) await reader.cancel().catch(() => {});
    else reader.cancel().catch(() => {});
    throw error;
  } finally {
    if (cutOff !== undefined) _unwatchCutOff(cutOff, fail);
    if (watched !== undefined) stall!.delete(watched);
    try {
      reader.releaseLock();
    } catch { /* already released */ }
  }
  const bytes = kept.bytes();
  // A BYOB read's blocks are this reader's own; a default reader's chunk may share its buffer.
  if (byob !== undefined && bytes.buffer.byteLength > 0) owned.add(bytes.buffer);
  return bytes;
}

/** A chunk at least this long that fills at least half its buffer is kept as it is, not copied. */
const KEEP_MIN = 16 * 1024;
/**
 * The first block of a body (a stalled body holds no more); the next ones are {@linkcode BLOCK}. Measured on
 * Deno.serve (2.9): a BYOB read into a view of at most 4096 bytes never ends when the parser refuses a chunk
 * extension over its limit (about 4 KiB), where a larger view fails at once; but every read into a larger
 * view costs a stalled body about 125 KB more of the runtime's memory. The reads stay small: such a body is
 * answered by the stall watch (408, "no body data was read").
 */
const FIRST_BLOCK = 4 * 1024;
const BLOCK = 64 * 1024;
/** A BYOB read into less room than this takes a new block instead. */
const MIN_ROOM = 1024;

/**
 * The bytes of one body, held so that memory follows the bytes received,
 * never the number of chunks (issue 38: Deno.serve's default reader hands each
 * chunked-encoding frame over as a view of a fresh read buffer of tens of KB,
 * so 200,000 one-byte chunks pinned 4 GB). Two ways in:
 * - a BYOB reader reads into {@linkcode BodyBytes.room} (the free end of a
 *   block this reader owns) and gives the filled view back with
 *   {@linkcode BodyBytes.filled};
 * - a default reader's chunk goes to {@linkcode BodyBytes.add}: a chunk that
 *   is small, or a small part of its buffer, is copied into a block and the
 *   reader's view dropped; a large chunk filling most of its buffer is kept.
 * The first block is 4 KiB, the next ones 64 KiB; a small body is
 * returned in a buffer of its own size, never as a view pinning a larger one.
 */
export class BodyBytes {
  #parts: Uint8Array[] = [];
  #block: Uint8Array | undefined;
  #used = 0;
  #size = 0;

  /** The free end of the current block (a new block when too little is left), for a BYOB read. */
  room(): Uint8Array {
    if (this.#block === undefined || this.#block.length - this.#used < MIN_ROOM) this.#next();
    return this.#block!.subarray(this.#used);
  }

  /** Takes back the view a BYOB read of {@linkcode BodyBytes.room} returned (the block's buffer moved into it). */
  filled(view: Uint8Array): void {
    this.#block = new Uint8Array(view.buffer);
    this.#used += view.length;
    this.#size += view.length;
  }

  /** Takes one chunk from a default reader. */
  add(chunk: Uint8Array): void {
    if (chunk.length >= KEEP_MIN && chunk.length * 2 >= chunk.buffer.byteLength) {
      this.#flush();
      this.#parts.push(chunk);
      this.#size += chunk.length;
      return;
    }
    let at = 0;
    while (at < chunk.length) {
      if (this.#block === undefined || this.#used === this.#block.length) this.#next();
      const block = this.#block!;
      const n = Math.min(chunk.length - at, block.length - this.#used);
      block.set(n === chunk.length ? chunk : chunk.subarray(at, at + n), this.#used);
      this.#used += n;
      this.#size += n;
      at += n;
    }
  }

  /** The body: the parts joined (a single part as it is). */
  bytes(): Uint8Array {
    if (this.#parts.length === 0) {
      if (this.#block === undefined) return EMPTY;
      // A body within one block: its own bytes, not a view pinning a mostly empty block.
      const used = this.#block.subarray(0, this.#used);
      return this.#used * 2 >= this.#block.length ? used : used.slice();
    }
    this.#flush();
    return concatBytes(this.#parts);
  }

  #next(): void {
    this.#flush();
    this.#block = new Uint8Array(this.#size === 0 ? FIRST_BLOCK : BLOCK);
  }

  #flush(): void {
    if (this.#block === undefined || this.#used === 0) return;
    this.#parts.push(this.#block.subarray(0, this.#used));
    this.#block = undefined;
    this.#used = 0;
  }
}

/**
 * A small body with a declared length, read whole by the runtime. The declared
 * bytes are charged to the budget before the read; shutdown and the stall
 * watch end the wait (the read itself is left to fail when the connection
 * closes, holding at most {@linkcode WHOLE_READ_MAX} bytes).
 */
async function _readWhole(
  request: IncomingRequest,
  declared: number,
  limit: number,
  { cutOff, budget, stall }: ReadBodyOptions,
): Promise<Uint8Array> {
  budget?.charge(declared);
  const read = request.arrayBuffer();
  // One promise settled by the read or, first, by shutdown or the stall watch (the read then fails later
  // with the connection, and that rejection lands in the settled promise, unheard).
  let fail: (error: Error) => void = () => {};
  const done = new Promise<ArrayBuffer>((resolve, reject) => {
    fail = reject;
    read.then(resolve, reject);
  });
  if (cutOff !== undefined) _watchCutOff(cutOff, fail);
  const watched = stall === undefined ? undefined : { last: performance.now(), fail };
  if (watched !== undefined) stall!.add(watched);
  try {
    const bytes = new Uint8Array(await done);
    // Nothing where a body was announced: the runtime hides it (`body` is null), never an empty body stored.
    if (bytes.length === 0 && declared !== 0 && request.body === null) throw new BodyUnreadableError();
    // A web Request's arrayBuffer() is a new buffer of its own; another source's may be shared.
    if (request instanceof Request && bytes.byteLength > 0) owned.add(bytes.buffer);
    if (bytes.length !== declared) {
      // A body longer or shorter than it declared (the runtime's framing should not let one through).
      if (bytes.length > limit) throw new BodyTooLargeError(limit);
      budget?.release(declared);
      budget?.charge(bytes.length);
    }
    return bytes;
  } catch (error) {
    budget?.release(declared);
    throw error;
  } finally {
    if (cutOff !== undefined) _unwatchCutOff(cutOff, fail);
    if (watched !== undefined) stall!.delete(watched);
  }
}
