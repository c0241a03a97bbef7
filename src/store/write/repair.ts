/**
 * Crash repair of the event log's end. A crash mid-write can leave a torn
 * last line (no newline). That line was never acknowledged (200 is sent only
 * after the sync), so the writer cuts it off before appending: no good
 * record is ever glued to a torn one.
 * @module
 */

const CHUNK = 64 * 1024;

/** Length of the file up to and including its last newline. */
export async function lastCompleteLineEnd(file: Deno.FsFile, size: number): Promise<number> {
  let end = size;
  const buf = new Uint8Array(CHUNK);
  while (end > 0) {
    const start = Math.max(0, end - CHUNK);
    const want = end - start;
    await file.seek(start, Deno.SeekMode.Start);
    let got = 0;
    while (got < want) {
      const n = await file.read(buf.subarray(got, want));
      if (n === null) break;
      got += n;
    }
    const at = buf.subarray(0, got).lastIndexOf(0x0a);
    if (at !== -1) return start + at + 1;
    end = start;
  }
  return 0;
}

/**
 * Cuts a torn last line off `file` (of `size` bytes).
 * @returns the number of bytes removed (0 when the file ended cleanly).
 */
export async function repairTail(file: Deno.FsFile, size: number): Promise<number> {
  if (size === 0) return 0;
  const good = await lastCompleteLineEnd(file, size);
  if (good === size) return 0;
  await file.truncate(good);
  await file.syncData();
  return size - good;
}
