/**
 * Crash repair of the event log's end. A crash mid-write can leave a torn
 * last line (no newline). That line was never acknowledged (200 is sent only
 * after the sync), so the writer cuts it off before appending: no good
 * record is ever glued to a torn one. A last line that is whole but for its
 * newline (an editor that saves without one, a copy that lost it) is a
 * record, not a torn write: it gets its newline back, never cut.
 * @module
 */

import { lastCompleteLineEnd } from "../read/line_end.ts";
import { openNoFollow } from "./no_follow.ts";

/** Longest last line checked for being whole (a bigger one is cut as torn). */
const MAX_WHOLE_CHECK = 256 * 1024 * 1024;

/**
 * Whether `[start, size)` of `file` (a last line without its newline) is a whole JSON object: a write
 * cut off by a crash cannot be, so it is a record that only lacks its newline.
 */
export async function isWholeLine(file: Deno.FsFile, start: number, size: number): Promise<boolean> {
  const length = size - start;
  if (length < 2 || length > MAX_WHOLE_CHECK) return false;
  const bytes = new Uint8Array(length);
  await file.seek(start, Deno.SeekMode.Start);
  let got = 0;
  while (got < length) {
    const n = await file.read(bytes.subarray(got));
    if (n === null) return false;
    got += n;
  }
  if (bytes[0] !== 0x7b /* { */ || bytes[length - 1] !== 0x7d /* } */) return false;
  try {
    const value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
    return typeof value === "object" && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

/**
 * Repairs the end of `file` (of `size` bytes, opened for appending): cuts a torn last line off, or gives a
 * whole last line the newline it lacks ({@linkcode isWholeLine}).
 * @returns the number of bytes removed (0 when the file ended cleanly or only lacked a newline).
 */
export async function repairTail(file: Deno.FsFile, size: number): Promise<number> {
  if (size === 0) return 0;
  const good = lastCompleteLineEnd(file, size);
  if (good === size) return 0;
  if (await isWholeLine(file, good, size)) {
    await file.seek(0, Deno.SeekMode.End);
    await file.write(new Uint8Array([0x0a]));
    await file.syncData();
    return 0;
  }
  await file.truncate(good);
  await file.syncData();
  return size - good;
}

/**
 * Gives the event log's whole last line the newline it lacks, if it does (see {@linkcode repairTail});
 * a torn one is left for `hooktap dev` to cut, with its warning. For `prune` and `rm` run without `dev`,
 * holding the writer lock, so a compaction keeps that record instead of leaving it out as torn.
 */
export async function completeLastLine(path: string): Promise<void> {
  try {
    await Deno.lstat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return; // no log yet: nothing to complete, nothing to create
    throw error;
  }
  const file = await openNoFollow(path, "the event log", { read: true, append: true });
  try {
    const size = (await file.stat()).size;
    if (size === 0) return;
    const good = lastCompleteLineEnd(file, size);
    if (good !== size && await isWholeLine(file, good, size)) {
      await file.write(new Uint8Array([0x0a]));
      await file.syncData();
    }
  } finally {
    file.close();
  }
}
