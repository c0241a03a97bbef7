/**
 * Line scanning of the event log in fixed-size chunks, forwards or backwards
 * from any byte offset. A scan hands out each line's position, length and
 * *head* (its first {@linkcode HEAD_BYTES} bytes, where a record's id and
 * endpoint are), never the rest: a 30 MiB line costs a search for its newline
 * in a reused buffer, not 30 MiB of memory, and only the line a command shows
 * is read whole ({@linkcode readLine}) and parsed. This is what keeps the
 * readers fast and flat on a store of any size, whatever the size of one event.
 * @module
 */

/** Size of a scan's first read; each next read doubles, up to {@linkcode MAX_CHUNK}. */
export const CHUNK_SIZE = 64 * 1024;
/** Largest read. */
const MAX_CHUNK = 1024 * 1024;
/**
 * Bytes of each line a scan keeps: a record's `{"v":1,"id":"…","endpoint":"…",`
 * fits with room for an endpoint name of ~4,000 bytes.
 */
export const HEAD_BYTES = 4096;

/** One line of the log, as a scan sees it. */
export interface Line {
  /** Byte offset of the line's first byte. */
  start: number;
  /** Length of the line in bytes, without its newline. */
  length: number;
  /** The line's first `min(length, HEAD_BYTES)` bytes. */
  head: Uint8Array;
  /** The file's last line has no newline: a write that was cut off (or is still in progress). */
  torn: boolean;
}

/** Options of the scans. */
export interface ScanOptions {
  /** Size of the first read. @default CHUNK_SIZE */
  chunkSize?: number;
  /** Bytes of each line kept in {@linkcode Line.head}. @default HEAD_BYTES */
  headBytes?: number;
  /**
   * Read without blocking the event loop (for a server's background work).
   * By default reads are synchronous: a command has nothing else to do, and
   * Deno's async file reads cost several times more per read.
   */
  background?: boolean;
}

/** Reads up to `buf.length` bytes at `pos` by synchronous calls; returns how many were read. */
export function readAtSync(file: Deno.FsFile, pos: number, buf: Uint8Array): number {
  file.seekSync(pos, Deno.SeekMode.Start);
  let got = 0;
  while (got < buf.length) {
    const n = file.readSync(buf.subarray(got));
    if (n === null) break;
    got += n;
  }
  return got;
}

/** Bytes of each read of {@linkcode eachLineBackward}. */
const BACKWARD_READ = 1024 * 1024;

/** Options of {@linkcode eachLineBackward}. */
export interface BackwardOptions {
  /** Only the lines of `[from, size)`: `from` a line start, or inside a line not to be read. @default 0 */
  from?: number;
  /** Reads that let a server's event loop run between them; else synchronous reads (a command). */
  background?: boolean;
  /** The buffer to read into, kept from call to call (made at the first, grown for a line longer than a read). */
  reuse?: { buf?: Uint8Array };
  /** Bytes of each read. @default a MiB */
  readBytes?: number;
}

/**
 * Calls `visit` with each complete line of `[from, size)` of a file, last first: the read that holds it and
 * where the line is in it (`start` to `end`, without its newline), empty ones skipped, until `visit` returns
 * `true`. A last piece without a newline (still being written) is not a line. Reads of a MiB into one buffer
 * reused (a pass over a long log makes no garbage per read), nothing made per line: `visit` must not keep
 * `data`. For a reader of a log from its end that stops early.
 * @returns where the line `visit` stopped at ends (after its newline: a next read up to there starts with
 * it again), or `from` when it read them all.
 * @throws {Error} when the file is shorter than `size`.
 */
export async function eachLineBackward(
  file: Deno.FsFile,
  size: number,
  visit: (data: Uint8Array, start: number, end: number) => boolean,
  options: BackwardOptions = {},
): Promise<number> {
  const { from = 0, background = false, reuse = {}, readBytes = BACKWARD_READ } = options;
  let buf = reuse.buf ??= new Uint8Array(Math.min(readBytes, size - from));
  let pos = size;
  let tail = 0; // bytes at the start of `buf`: a line whose start is not read yet
  let torn = true; // until a newline is seen from the end: the bytes so far are a line still being written
  while (pos > from) {
    const n = Math.min(readBytes, pos - from);
    pos -= n;
    if (buf.length < n + tail) {
      const grown = new Uint8Array(Math.max(buf.length * 2, n + tail));
      grown.set(buf.subarray(0, tail));
      buf = reuse.buf = grown;
    }
    buf.copyWithin(n, 0, tail); // the tail goes after the bytes read now
    if (await readAt(file, pos, buf.subarray(0, n), background) < n) {
      throw new Error("the log shrank while being read");
    }
    const data = buf.subarray(0, n + tail);
    let end = data.length;
    let nl = data.lastIndexOf(0x0a);
    if (torn) {
      if (nl === -1) {
        tail = 0; // all of it is the torn line
        continue;
      }
      torn = false;
      end = nl;
      nl = nl === 0 ? -1 : data.lastIndexOf(0x0a, nl - 1);
    }
    for (; nl !== -1; nl = nl === 0 ? -1 : data.lastIndexOf(0x0a, nl - 1)) {
      if (end > nl + 1 && visit(data, nl + 1, end) === true) return pos + end + 1;
      end = nl;
    }
    tail = end;
  }
  if (!torn && tail > 0 && visit(buf, 0, tail) === true) return from + tail + 1;
  return from;
}

/**
 * Calls `visit` with each complete line of a file of `size` bytes as text, first first, empty ones skipped;
 * a last piece without a newline (still being written) is not a line. Synchronous, reads of `readBytes`
 * (a MiB) decoded whole (a newline byte never falls inside a UTF-8 character), no promise per line: for
 * a pass over a whole log where the runtime's string search picks the lines worth parsing.
 * @throws {Error} when the file is shorter than `size`.
 */
export function eachTextLineSync(
  file: Deno.FsFile,
  size: number,
  visit: (line: string) => void,
  readBytes: number = BACKWARD_READ,
): void {
  const text = new TextDecoder();
  let pos = 0;
  let head: Uint8Array = new Uint8Array(0); // the start of a line whose end is not read yet
  while (pos < size) {
    const n = Math.min(readBytes, size - pos);
    const data = new Uint8Array(head.length + n);
    data.set(head);
    if (readAtSync(file, pos, data.subarray(head.length)) < n) {
      throw new Error(`the log shrank while being read`);
    }
    pos += n;
    const last = data.lastIndexOf(0x0a);
    if (last === -1) {
      head = data;
      continue;
    }
    const chunk = text.decode(data.subarray(0, last));
    let from = 0;
    for (let nl = chunk.indexOf("\n"); from <= chunk.length; nl = chunk.indexOf("\n", from)) {
      const end = nl === -1 ? chunk.length : nl;
      if (end > from) visit(chunk.slice(from, end));
      from = end + 1;
    }
    head = data.subarray(last + 1);
  }
}

/** Reads up to `buf.length` bytes at `pos`; resolves to how many were read. */
export async function readAt(
  file: Deno.FsFile,
  pos: number,
  buf: Uint8Array,
  background = false,
): Promise<number> {
  if (!background) return readAtSync(file, pos, buf);
  let got = 0;
  await file.seek(pos, Deno.SeekMode.Start);
  while (got < buf.length) {
    const n = await file.read(buf.subarray(got));
    if (n === null) break;
    got += n;
  }
  return got;
}

/** The whole bytes of a line found by a scan (its head when that is all of it). */
export async function readLine(file: Deno.FsFile, line: Line): Promise<Uint8Array> {
  if (line.head.length >= line.length) return line.head;
  const bytes = new Uint8Array(line.length);
  const got = await readAt(file, line.start, bytes);
  return bytes.subarray(0, got);
}

/**
 * Reads of growing size. A read that may hold a line start gets a fresh
 * buffer (heads are views into it, not copies); a read inside a long line
 * (`crossing`) reuses one scratch buffer, copied only if a line does start in it.
 */
class Reads {
  #size: number;
  #scratch: Uint8Array | undefined;
  constructor(first: number, private readonly file: Deno.FsFile, private readonly background: boolean) {
    this.#size = first;
  }
  /** Size of the next read. */
  next(): number {
    const size = this.#size;
    this.#size = Math.min(Math.max(MAX_CHUNK, size), size * 2);
    return size;
  }
  async at(pos: number, n: number, crossing = false): Promise<Uint8Array> {
    if (!crossing) {
      const buf = new Uint8Array(n);
      return buf.subarray(0, await readAt(this.file, pos, buf, this.background));
    }
    if (this.#scratch === undefined || this.#scratch.length < n) this.#scratch = new Uint8Array(n);
    const data = this.#scratch.subarray(
      0,
      await readAt(this.file, pos, this.#scratch.subarray(0, n), this.background),
    );
    return data.indexOf(0x0a) === -1 ? data : data.slice();
  }
}

/** The head of the line `[start, start + length)`: a view into `data` when it holds it, else read. */
function _head(
  reads: Reads,
  data: Uint8Array,
  dataStart: number,
  start: number,
  length: number,
  headBytes: number,
): Uint8Array | Promise<Uint8Array> {
  const want = Math.min(length, headBytes);
  const from = start - dataStart;
  if (from >= 0 && from + want <= data.length) return data.subarray(from, from + want);
  return reads.at(start, want);
}

/**
 * The lines of `[start, end)`, last first (`start` must be a line start). A
 * last line without a newline comes first, marked `torn`. Empty lines are skipped.
 */
export async function* scanBackward(
  file: Deno.FsFile,
  end: number,
  options: ScanOptions & { start?: number } = {},
): AsyncGenerator<Line> {
  const from = options.start ?? 0;
  const headBytes = options.headBytes ?? HEAD_BYTES;
  const reads = new Reads(options.chunkSize ?? CHUNK_SIZE, file, options.background ?? false);
  if (end <= from) return;
  const last = new Uint8Array(1);
  await readAt(file, end - 1, last, options.background);
  let torn = last[0] !== 0x0a;
  let lineEnd = end; // end (exclusive, before its newline) of the line being looked for
  let pos = end;
  let data: Uint8Array = new Uint8Array(0);
  let dataStart = end;
  while (pos > from) {
    const n = Math.min(pos - from, reads.next());
    dataStart = pos - n;
    data = await reads.at(dataStart, n, lineEnd - pos > headBytes);
    if (data.length < n) throw new Error(`events.jsonl shrank while being read (at byte ${dataStart})`);
    for (let nl = data.lastIndexOf(0x0a); nl !== -1; nl = nl === 0 ? -1 : data.lastIndexOf(0x0a, nl - 1)) {
      const start = dataStart + nl + 1;
      const length = lineEnd - start;
      if (length > 0) {
        yield { start, length, head: await _head(reads, data, dataStart, start, length, headBytes), torn };
      }
      torn = false;
      lineEnd = dataStart + nl;
    }
    pos = dataStart;
  }
  if (lineEnd > from) {
    const length = lineEnd - from;
    yield { start: from, length, head: await _head(reads, data, dataStart, from, length, headBytes), torn };
  }
}

/**
 * The lines of `[start, end)`, first first. `start` must be a line start. A
 * last piece without a newline is yielded marked `torn`. Empty lines are skipped.
 */
export async function* scanForward(
  file: Deno.FsFile,
  start: number,
  end: number,
  options: ScanOptions = {},
): AsyncGenerator<Line> {
  const headBytes = options.headBytes ?? HEAD_BYTES;
  const reads = new Reads(options.chunkSize ?? CHUNK_SIZE, file, options.background ?? false);
  let lineStart = start;
  let pos = start;
  let data: Uint8Array = new Uint8Array(0);
  let dataStart = start;
  while (pos < end) {
    const n = Math.min(end - pos, reads.next());
    dataStart = pos;
    data = await reads.at(pos, n, pos - lineStart > headBytes);
    if (data.length === 0) break;
    for (let nl = data.indexOf(0x0a); nl !== -1; nl = data.indexOf(0x0a, nl + 1)) {
      const length = dataStart + nl - lineStart;
      if (length > 0) {
        const head = await _head(reads, data, dataStart, lineStart, length, headBytes);
        yield { start: lineStart, length, head, torn: false };
      }
      lineStart = dataStart + nl + 1;
    }
    pos += data.length;
  }
  if (pos > lineStart) {
    const length = pos - lineStart;
    yield {
      start: lineStart,
      length,
      head: await _head(reads, data, dataStart, lineStart, length, headBytes),
      torn: true,
    };
  }
}

/**
 * Offset of the first line that starts at or after `pos` (and before `end`),
 * or `end`. Reads grow from `chunkSize` while no newline is found, so a long
 * line is crossed in few reads.
 */
export async function lineStartAtOrAfter(
  file: Deno.FsFile,
  pos: number,
  end: number,
  chunkSize: number = 4096,
): Promise<number> {
  if (pos <= 0) return 0;
  let size = chunkSize;
  let buf = new Uint8Array(size);
  // A line starts at `pos` when the byte before it is a newline.
  let at = pos - 1;
  while (at < end) {
    const got = await readAt(file, at, buf.subarray(0, Math.min(size, end - at)));
    if (got === 0) break;
    const nl = buf.subarray(0, got).indexOf(0x0a);
    if (nl !== -1) return Math.min(end, at + nl + 1);
    at += got;
    if (size < MAX_CHUNK) buf = new Uint8Array(size = Math.min(MAX_CHUNK, size * 4));
  }
  return end;
}
