/**
 * Where the event log's last whole line ends. The writer's repair at start
 * and a compaction's end (../write/repair.ts, ../write/compact.ts) and a
 * reader's note about a line still being written (./skipped.ts) all ask it.
 * Synchronous reads, as the readers' scans make ({@linkcode readAtSync}):
 * cheaper than Deno's async ones, and a log that ends with a newline (the
 * usual case) costs one byte read.
 * @module
 */
import { readAtSync } from "./lines.ts";

/** Bytes of each read backwards. */
const CHUNK = 64 * 1024;

/**
 * The length of `[0, size)` of `file` up to and including its last newline: `size` when it ends with one,
 * else where its unfinished last line (torn by a crash, or still being written) starts; 0 when it has none.
 */
export function lastCompleteLineEnd(file: Deno.FsFile, size: number): number {
  if (size === 0) return 0;
  const last = new Uint8Array(1);
  if (readAtSync(file, size - 1, last) === 1 && last[0] === 0x0a) return size;
  const buf = new Uint8Array(Math.min(CHUNK, size));
  for (let end = size; end > 0;) {
    const start = Math.max(0, end - CHUNK);
    const got = readAtSync(file, start, buf.subarray(0, end - start));
    const at = buf.subarray(0, got).lastIndexOf(0x0a);
    if (at !== -1) return start + at + 1;
    end = start;
  }
  return 0;
}
