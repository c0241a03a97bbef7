/**
 * Compaction of the event log: `prune` (keep the newest N, or drop events
 * older than a time), `rm` (drop events by id, or all). The lines kept are
 * copied, in large chunks and never parsed, to a temp file inside
 * `.hooktap`, which is synced and renamed over `events.jsonl`, then the
 * directory is synced: a crash at any point leaves either the old log whole
 * or the new one whole. The index is removed before the rename (it is a
 * cache) and rebuilt after it.
 *
 * The caller must be the log's only writer: it holds the writer lock, or it
 * is `hooktap dev` with its writer paused.
 * @module
 */
import { basenameOf, joinPath } from "../../text/path.ts";
import { StoreError } from "../../errors.ts";
import { newestPerEndpoint } from "../index_file.ts";
import { writeIndex } from "./index_write.ts";
import { ID_PROBE_BYTES, idTime, lineId } from "../read/line_key.ts";
import { findByIdPrefix } from "../read/lookup.ts";
import { lineStartAtOrAfter, readAt } from "../read/lines.ts";
import { openStoreReader } from "../read/reader.ts";
import type { StorePaths } from "../paths.ts";
import { lastCompleteLineEnd } from "../read/line_end.ts";
import { openNoFollow, writeFileReplacing } from "./no_follow.ts";
import { writeFailureOf } from "./write_fix.ts";

/** What to remove. Several fields combine: an event goes when any of them says so. */
export interface CompactPlan {
  /** Keep only the newest `keep` events. */
  keep?: number;
  /** Remove events that arrived before this time (ms since the epoch). */
  beforeMs?: number;
  /** Remove these events (whole ids). */
  ids?: string[];
  /** Remove every event. */
  all?: boolean;
}

/** What a compaction did. */
export interface CompactResult {
  /** Events left in the log. */
  kept: number;
  /** Bytes of the log before and after. */
  bytesBefore: number;
  bytesAfter: number;
  /** Ids asked for that were not in the log. */
  missing: string[];
  /** Newest id of each endpoint in the new log (what the index now holds). */
  latest: Map<string, string>;
  /** Nothing was to be removed: the log was left as it was (`kept` is then -1, not counted). */
  unchanged?: boolean;
}

const CHUNK = 4 * 1024 * 1024;
/** Name of the temp file the new log is written to. */
export const COMPACT_TEMP = "events.jsonl.compact.tmp";

/** Bytes every record line starts with, of any format version: `{"v":`. A line without them is no event. */
const RECORD_HEAD = new TextEncoder().encode('{"v":');

function _isRecordHead(bytes: Uint8Array): boolean {
  if (bytes.length < RECORD_HEAD.length) return false;
  for (let i = 0; i < RECORD_HEAD.length; i++) if (bytes[i] !== RECORD_HEAD[i]) return false;
  return true;
}

/** Counts the record lines (those starting `{"v":`) in bytes fed in order, from a line start on. */
class RecordCounter {
  count = 0;
  /** Bytes of RECORD_HEAD matched at the current line's start; -1 once it is known not to be one (or counted). */
  #matched = 0;
  feed(data: Uint8Array): void {
    let i = 0;
    while (i < data.length) {
      if (this.#matched >= 0) {
        if (data[i] === RECORD_HEAD[this.#matched]) {
          i++;
          if (++this.#matched === RECORD_HEAD.length) {
            this.count++;
            this.#matched = -1;
          }
          continue;
        }
        this.#matched = -1;
      }
      const nl = data.indexOf(0x0a, i);
      if (nl === -1) return;
      this.#matched = 0;
      i = nl + 1;
    }
  }
}

/**
 * Offset where the newest `n` events of `[0, end)` start: lines that are no record (garbage, a hand edit)
 * are not counted, so `--keep 100` keeps 100 events however many such lines are among them.
 */
async function _startOfNewest(file: Deno.FsFile, end: number, n: number): Promise<number> {
  if (n <= 0) return end;
  let pos = end;
  let seen = 0;
  const buf = new Uint8Array(CHUNK);
  const probe = new Uint8Array(RECORD_HEAD.length);
  let lineEnd = end; // a newline at end-1 ends the last line, not starts one
  const isRecordAt = async (data: Uint8Array, i: number, at: number) =>
    i + RECORD_HEAD.length <= data.length
      ? _isRecordHead(data.subarray(i, i + RECORD_HEAD.length))
      : _isRecordHead(probe.subarray(0, await readAt(file, at, probe)));
  while (pos > 0) {
    const start = Math.max(0, pos - CHUNK);
    const got = await readAt(file, start, buf.subarray(0, pos - start));
    const data = buf.subarray(0, got);
    for (let i = data.lastIndexOf(0x0a, data.length - 1); i !== -1; i = data.lastIndexOf(0x0a, i - 1)) {
      const at = start + i;
      if (at + 1 < lineEnd && await isRecordAt(data, i + 1, at + 1)) { // an event's line starts at at + 1
        if (++seen === n) return at + 1;
      }
      lineEnd = at;
      if (i === 0) break;
    }
    pos = start;
  }
  return 0;
}

/** Offset of the first line whose id's time is at or after `ms` (ids are time-ordered). */
async function _firstAtOrAfter(file: Deno.FsFile, end: number, ms: number): Promise<number> {
  const probe = new Uint8Array(ID_PROBE_BYTES);
  const timeAt = async (start: number): Promise<number> => {
    for (let s = start; s < end; s = await lineStartAtOrAfter(file, s + 1, end)) {
      const id = lineId(probe.subarray(0, await readAt(file, s, probe)));
      if (id !== undefined) return idTime(id);
    }
    return Infinity;
  };
  // As lookup.ts: every line that starts before `lo` is older; then a short walk from `lo`.
  let lo = 0;
  let hi = end;
  while (hi - lo > 64 * 1024) {
    const mid = Math.floor((lo + hi) / 2);
    const s = await lineStartAtOrAfter(file, mid, end);
    if (s >= hi || (await timeAt(s)) >= ms) hi = mid;
    else lo = s + 1;
  }
  let s = await lineStartAtOrAfter(file, lo, end);
  while (s < end && (await timeAt(s)) < ms) s = await lineStartAtOrAfter(file, s + 1, end);
  return s;
}

/** Stops here when HOOKTAP_TEST_COMPACT_PAUSE names this point (tests kill the process there). */
async function _testPoint(paths: StorePaths, point: string): Promise<void> {
  const name = "HOOKTAP_TEST_COMPACT_PAUSE";
  if (Deno.permissions.querySync({ name: "env", variable: name }).state !== "granted") return;
  if (Deno.env.get(name) !== point) return;
  await writeFileReplacing(joinPath(paths.dir, `compact-paused-${point}`), String(Deno.pid));
  await new Promise(() => {}); // until killed
}

async function _syncDir(dir: string): Promise<void> {
  try {
    using d = await Deno.open(dir, { read: true });
    await d.sync();
  } catch {
    // Not every platform can sync a directory; the rename itself is atomic.
  }
}

/**
 * Rewrites the log at `paths` without the events `plan` removes; `[0, end)`
 * is the part of the log that is complete (default: up to its last newline).
 * @throws {StoreError} when the log cannot be read or the new one written;
 * the old log is then untouched.
 */
export async function compactLog(
  paths: StorePaths,
  plan: CompactPlan,
  options: { end?: number } = {},
): Promise<CompactResult> {
  const tmp = paths.compactTemp;
  await Deno.remove(tmp).catch(() => {}); // left by a compaction that was killed
  const reader = await openStoreReader(paths);
  if (reader === null) {
    return { kept: 0, bytesBefore: 0, bytesAfter: 0, missing: plan.ids ?? [], latest: new Map() };
  }
  const ranges: [number, number][] = [];
  const missing: string[] = [];
  let bytesBefore: number;
  try {
    const end = options.end ?? lastCompleteLineEnd(reader.file, reader.size);
    bytesBefore = end;
    let cut = 0;
    if (plan.all) cut = end;
    if (plan.keep !== undefined) cut = Math.max(cut, await _startOfNewest(reader.file, end, plan.keep));
    if (plan.beforeMs !== undefined) {
      cut = Math.max(cut, await _firstAtOrAfter(reader.file, end, plan.beforeMs));
    }
    // Each removed id is a hole in [cut, end).
    const holes: [number, number][] = [];
    for (const id of plan.ids ?? []) {
      const found = await findByIdPrefix(reader, { prefix: id, key: (x) => x }, { max: 1 });
      const hit = found.matches.find((m) => m.id === id && m.start < end);
      if (hit === undefined) {
        missing.push(id);
        continue;
      }
      if (hit.start < cut) continue;
      holes.push([hit.start, await lineStartAtOrAfter(reader.file, hit.start + 1, end)]);
    }
    holes.sort((a, b) => a[0] - b[0]);
    let at = cut;
    for (const [s, e] of holes) {
      if (s > at) ranges.push([at, s]);
      at = Math.max(at, e);
    }
    if (at < end) ranges.push([at, end]);
  } finally {
    reader[Symbol.dispose]();
  }
  if (ranges.length === 1 && ranges[0]![0] === 0 && ranges[0]![1] === bytesBefore) {
    // Nothing to remove: leave the log alone (no copy, no pause longer than the plan).
    return { kept: -1, bytesBefore, bytesAfter: bytesBefore, missing, latest: new Map(), unchanged: true };
  }
  let kept = 0;
  let bytesAfter = 0;
  try {
    using src = await Deno.open(paths.events, { read: true });
    using out = await openNoFollow(tmp, "the compacted log", { write: true, createNew: true });
    const buf = new Uint8Array(CHUNK);
    const events = new RecordCounter();
    for (const [s, e] of ranges) {
      for (let pos = s; pos < e;) {
        const got = await readAt(src, pos, buf.subarray(0, Math.min(CHUNK, e - pos)));
        if (got === 0) throw new Error("the log ended early");
        const data = buf.subarray(0, got);
        events.feed(data); // each range starts at a line start and ends after a newline
        for (let off = 0; off < got;) off += await out.write(data.subarray(off));
        pos += got;
        bytesAfter += got;
      }
    }
    await out.syncData();
    kept = events.count;
  } catch (error) {
    await Deno.remove(tmp).catch(() => {});
    const { reason, fix } = writeFailureOf(error, basenameOf(paths.dir));
    throw new StoreError(
      `Cannot write the compacted log ${tmp}: ${reason}. The event log was not changed. To fix it, ${fix}.`,
      { cause: error },
    );
  }
  await _testPoint(paths, "copied");
  await Deno.remove(paths.index).catch(() => {}); // a cache of the old log: never let it describe the new one
  await Deno.rename(tmp, paths.events);
  await _syncDir(paths.dir);
  await _testPoint(paths, "renamed");
  using file = await Deno.open(paths.events, { read: true });
  const scan = await newestPerEndpoint(file, bytesAfter);
  await writeIndex(paths, { v: 1, size: bytesAfter, latest: Object.fromEntries(scan.latest) });
  return { kept, bytesBefore, bytesAfter, missing, latest: scan.latest };
}
