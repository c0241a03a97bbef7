/**
 * Line-by-line reading of the event log in fixed-size chunks, forwards or
 * backwards from any byte offset. Memory holds one chunk and the line being
 * assembled, never the file: this is what lets the readers stay flat on a
 * store of any size.
 * @module
 */
import { concatBytes } from "../../bytes.ts";

/** Size of one read. */
export const CHUNK_SIZE = 64 * 1024;

/** One line of the log: its bytes (without the newline) and where it starts. */
export interface Line {
  /** Byte offset of the line's first byte. */
  start: number;
  bytes: Uint8Array;
  /** The file's last line has no newline: a write that was cut off (or is still in progress). */
  torn: boolean;
}

/** Reads up to `buf.length` bytes at `pos`; resolves to how many were read. */
export async function readAt(file: Deno.FsFile, pos: number, buf: Uint8Array): Promise<number> {
  await file.seek(pos, Deno.SeekMode.Start);
  let got = 0;
  while (got < buf.length) {
    const n = await file.read(buf.subarray(got));
    if (n === null) break;
    got += n;
  }
  return got;
}

/**
 * The lines of `[start, end)`, last first (`start` must be a line start). A
 * last line without a newline comes first, marked `torn`. Empty lines are skipped.
 */
export async function* linesBackward(
  file: Deno.FsFile,
  end: number,
  options: { start?: number; chunkSize?: number } = {},
): AsyncGenerator<Line> {
  const from = options.start ?? 0;
  const chunkSize = options.chunkSize ?? CHUNK_SIZE;
  if (end <= from) return;
  const last = new Uint8Array(1);
  await readAt(file, end - 1, last);
  let torn = last[0] !== 0x0a;
  // `tail` holds the bytes after the newest newline seen so far, newest part last.
  let tail: Uint8Array[] = [];
  let pos = end;
  while (pos > from) {
    const start = Math.max(from, pos - chunkSize);
    const chunk = new Uint8Array(pos - start);
    const got = await readAt(file, start, chunk);
    const data = chunk.subarray(0, got);
    let lineEnd = data.length;
    for (let nl = data.lastIndexOf(0x0a, lineEnd - 1); nl !== -1; nl = data.lastIndexOf(0x0a, lineEnd - 1)) {
      const bytes = concatBytes([data.subarray(nl + 1, lineEnd), ...tail]);
      tail = [];
      if (bytes.length > 0) {
        yield { start: start + nl + 1, bytes, torn };
        torn = false;
      } else if (torn) torn = false;
      lineEnd = nl;
      if (nl === 0) break; // lastIndexOf(x, -1) would search from the end again
    }
    if (lineEnd > 0) tail.unshift(data.subarray(0, lineEnd));
    pos = start;
  }
  const first = concatBytes(tail);
  if (first.length > 0) yield { start: from, bytes: first, torn };
}

/**
 * The lines of `[start, end)`, first first. `start` must be a line start. A
 * last piece without a newline is yielded marked `torn`.
 */
export async function* linesForward(
  file: Deno.FsFile,
  start: number,
  end: number,
  chunkSize: number = CHUNK_SIZE,
): AsyncGenerator<Line> {
  let head: Uint8Array[] = [];
  let headStart = start;
  let pos = start;
  while (pos < end) {
    // A fresh buffer per read: the lines handed out are views into it, not copies.
    const buf = new Uint8Array(Math.min(chunkSize, end - pos));
    const got = await readAt(file, pos, buf);
    if (got === 0) break;
    const data = buf.subarray(0, got);
    let lineStart = 0;
    for (let nl = data.indexOf(0x0a); nl !== -1; nl = data.indexOf(0x0a, lineStart)) {
      const piece = data.subarray(lineStart, nl);
      const bytes = head.length === 0 ? piece : concatBytes([...head, piece]);
      head = [];
      if (bytes.length > 0) yield { start: headStart, bytes, torn: false };
      lineStart = nl + 1;
      headStart = pos + lineStart;
    }
    if (lineStart < data.length) head.push(data.subarray(lineStart));
    pos += got;
  }
  const rest = concatBytes(head);
  if (rest.length > 0) yield { start: headStart, bytes: rest, torn: true };
}

/** Offset of the first line that starts at or after `pos` (and before `end`), or `end`. */
export async function lineStartAtOrAfter(
  file: Deno.FsFile,
  pos: number,
  end: number,
  chunkSize: number = 4096,
): Promise<number> {
  if (pos <= 0) return 0;
  const buf = new Uint8Array(chunkSize);
  // A line starts at `pos` when the byte before it is a newline.
  let at = pos - 1;
  while (at < end) {
    const got = await readAt(file, at, buf.subarray(0, Math.min(chunkSize, end - at)));
    if (got === 0) break;
    const nl = buf.subarray(0, got).indexOf(0x0a);
    if (nl !== -1) return Math.min(end, at + nl + 1);
    at += got;
  }
  return end;
}
