/**
 * The forwarder's read-back: events waiting for a target are not all kept
 * in memory. Each is on disk before it is queued, so a lane keeps a small
 * window of events and, past it, only a place in `.hooktap/events.jsonl`
 * (a byte offset and the id found there), reading the rest back in order as
 * its queue drains, at start-up (resume) as well. Reading never takes the
 * writer's lock; a place whose line no longer carries its id (the log was
 * rewritten by `prune`) is found again by id.
 * @module
 */
import { type CapturedEvent, parseEventLine } from "../event/record.ts";
import type { StorePaths } from "../store/paths.ts";
import { endpointMatcher, lineId } from "../store/read/line_key.ts";
import { readAtSync, scanBackward, scanForward } from "../store/read/lines.ts";
import { openStoreReader } from "../store/read/reader.ts";

/** A place in the event log: the start of the line of event `id` (`""`: the end of the log as it was read). */
export interface Place {
  offset: number;
  id: string;
}

/** Where a read ended: stopped before an event, or at the end of what was there. */
export interface ReadEnd {
  /** The place of the event the visitor stopped before. */
  stopped?: Place;
  /** Where to read on from when it did not stop (the end of the log as read). */
  next: Place;
}

/** What a read-back visitor says of an event: take it, pass it, or stop before it (the window is full). */
export type Visit = "take" | "pass" | "stop";

/** The store as the forwarder reads it back. */
export interface Backlog {
  /** The place of event `id`, looked for backward from the end (it was just stored), or `undefined`. */
  locate(id: string): Promise<Place | undefined>;
  /**
   * Visits the events of endpoint `endpoint` from `from` on, in log order, up to `until` (bytes) when
   * given; stops at the first `stop`.
   */
  read(
    from: Place,
    endpoint: string,
    visit: (event: CapturedEvent, place: Place) => Visit,
    until?: number,
  ): Promise<ReadEnd>;
  /** The log's size now. */
  size(): Promise<number>;
  /**
   * Lets go of the log held open between reads (held only while reads stop before its end: a lane behind); a
   * read after it opens the log again, for that read.
   */
  close(): void;
  /**
   * Lets go of the log held open until the next read: a lane that waits for its target reads nothing
   * meanwhile (maybe for hours), and a log that `prune` replaced would stay on disk while it is held.
   */
  rest(): void;
}

const SCAN = { background: true };
const decoder = new TextDecoder();
/**
 * The read-back's scan, done while the app is slower than the senders, about once per half window of events:
 * reads of 128 KiB (about half a window of ordinary events, what a refill takes; a longer line gets a read as
 * long as it), the lines handed out as views of them, by synchronous calls and a synchronous loop (no promise
 * per line). The events read back were written moments ago and are in the page cache: a synchronous read costs
 * a few µs of the main thread, an async one ~15 µs and two hand-offs to a worker thread. Alone, 20,000 events
 * read back 32 at a time: 9.1 µs of CPU per event with reads of 256 KiB through the async line scanner, 7.9 so
 * (5.6 of it decoding and parsing the line; issue 36).
 */
const READ_BYTES = 128 * 1024;

/** The buffer of {@linkcode eachLineSync}'s reads (one at a time: the scan is synchronous). */
let readBuffer: Uint8Array | undefined;

/**
 * Calls `each` with the lines of `[start, end)` in order (`start` a line start), whole, empty ones skipped; a
 * last piece without a newline comes marked `torn`; `each` returns `false` to stop. Synchronous: see
 * {@linkcode READ_BYTES}. A line's bytes are a view of a read buffer that the next read reuses: valid during
 * the call only. (A callback and one buffer, not a generator yielding an object per line over a fresh
 * 128 KiB buffer per read: issue 36.)
 */
export function eachLineSync(
  file: Deno.FsFile,
  start: number,
  end: number,
  each: (start: number, bytes: Uint8Array, torn: boolean) => boolean,
): void {
  let pos = start;
  let size = READ_BYTES;
  while (pos < end) {
    const want = Math.min(end - pos, size);
    const data = want <= READ_BYTES
      ? (readBuffer ??= new Uint8Array(READ_BYTES)).subarray(0, want)
      : new Uint8Array(want);
    const got = readAtSync(file, pos, data);
    if (got === 0) return;
    const view = got === want ? data : data.subarray(0, got);
    let from = 0;
    for (let nl = view.indexOf(0x0a); nl !== -1; nl = view.indexOf(0x0a, from)) {
      if (nl > from && !each(pos + from, view.subarray(from, nl), false)) return;
      from = nl + 1;
    }
    if (from < got && (got < want || pos + got >= end)) {
      // The log (or the range) ends inside this line: still being written.
      each(pos + from, view.subarray(from), true);
      return;
    }
    // On from the first line not whole in this read; a line longer than a read gets a read twice as long.
    size = from === 0 ? size * 2 : READ_BYTES;
    pos += from;
  }
}

/** The read-back of the store at `paths`. */
export function storeBacklog(paths: StorePaths): Backlog {
  async function locate(id: string): Promise<Place | undefined> {
    const reader = await openStoreReader(paths);
    if (reader === null) return undefined;
    using r = reader;
    for await (const line of scanBackward(r.file, r.size, SCAN)) {
      const found = lineId(line.head);
      if (found === id) return { offset: line.start, id };
      if (found !== undefined && found < id && line.start < r.size - 64 * 1024 * 1024) break;
    }
    return undefined;
  }
  /** The place of the first line at or after `from` whose id is `from.id` (or after it), by scanning. */
  async function refind(r: LogView, from: Place) {
    for await (const line of scanForward(r.file, 0, r.size, SCAN)) {
      const id = lineId(line.head);
      if (id !== undefined && id >= from.id) return { offset: line.start, id };
    }
    return undefined;
  }
  /**
   * The log held open from read to read, and which file it is (its inode). A read opened, fstat-ed and closed
   * it each time: ~40 µs of dev's main thread with its read permissions, about once per 32 events read back.
   * A stat by path tells the size now and whether the path still names the same file (`prune` writes a new
   * one in its place).
   */
  let held: { file: Deno.FsFile; ino: number } | undefined;
  let closed = false;
  /** Reads under way: the held file is closed after the last of them once {@linkcode Backlog.close} was called. */
  let reading = 0;
  const release = () => {
    held?.file.close();
    held = undefined;
  };
  /** The log and its size now (`own`: opened for this read alone, closed after it), or `null` when there is none. */
  async function view(): Promise<LogView | null> {
    let info: Deno.FileInfo | undefined;
    try {
      info = Deno.statSync(paths.events);
    } catch { /* gone, or not readable: the open below says which */ }
    if (held !== undefined && info?.ino != null && info.ino === held.ino) {
      return { file: held.file, size: info.size, own: false };
    }
    if (reading <= 1) release(); // this read alone (another may still be scanning the held file)
    const reader = await openStoreReader(paths);
    if (reader === null) return null;
    const ino = closed || held !== undefined ? null : reader.file.statSync().ino;
    if (ino === null) return { file: reader.file, size: reader.size, own: true };
    held = { file: reader.file, ino };
    return { file: reader.file, size: reader.size, own: false };
  }
  return {
    locate,
    async size() {
      try {
        return (await Deno.stat(paths.events)).size;
      } catch {
        return 0;
      }
    },
    close() {
      closed = true;
      if (reading === 0) release();
    },
    rest() {
      if (reading === 0) release();
    },
    async read(from, endpoint, visit, until) {
      reading++;
      let r: LogView | null = null;
      let end: ReadEnd | undefined;
      try {
        r = await view();
        if (r === null) return end = { next: from };
        return end = await scan(r, from, endpoint, visit, until);
      } finally {
        reading--;
        if (r?.own) r.file.close();
        // Held while a lane reads on (its window full again and again); let go once a read reached the end
        // (the lane caught up: nothing may read again for days, and a file `prune` replaced would stay on disk).
        if ((closed || end?.stopped === undefined) && reading === 0) release();
      }
    },
  };

  /** {@linkcode Backlog.read} over the log `r`. */
  async function scan(
    held: LogView,
    from: Place,
    endpoint: string,
    visit: (event: CapturedEvent, place: Place) => Visit,
    until: number | undefined,
  ): Promise<ReadEnd> {
    let r = held;
    let start = from;
    if (start.id === "" && start.offset > r.size) start = { offset: r.size, id: "" };
    let end = until === undefined ? r.size : Math.min(until, r.size);
    const ours = endpointMatcher(endpoint);
    // The place is checked on the scan's first line, not by a read of its own.
    let check = start.id !== "";
    try {
      for (;;) {
        let next = Math.max(start.offset, Math.min(end, r.size));
        let rewritten = false;
        let stopped: Place | undefined;
        const at0 = start;
        eachLineSync(r.file, at0.offset, end, (at, bytes, torn) => {
          if (check) {
            check = false;
            // The log was rewritten under us (prune): the place is found again by id, below.
            if (at !== at0.offset || lineId(bytes) !== at0.id) {
              rewritten = true;
              return false;
            }
          }
          if (torn) return false; // still being written: read again later
          next = at + bytes.length + 1;
          // The endpoint told by its bytes (JSON.stringify's, as stored), then checked on the event.
          if (lineId(bytes) === undefined || !ours(bytes)) return true;
          const event = parseEventLine(decoder.decode(bytes));
          if (event === undefined || event.endpoint !== endpoint) return true;
          const place = { offset: at, id: event.id };
          if (visit(event, place) !== "stop") return true;
          stopped = place;
          return false;
        });
        if (stopped !== undefined) return { stopped, next: stopped };
        // Rewritten, or nothing at the place any more (the log was cut shorter under us): found again by id.
        if (!rewritten && !check) return { next: { offset: next, id: "" } };
        check = false;
        if (!r.own) {
          // On a reader of this read's own, the log as it is now: the search reads in the background (a long
          // log), and the file held between reads may be read by another target's lane meanwhile.
          const reader = await openStoreReader(paths);
          if (reader === null) return { next: { offset: 0, id: "" } };
          r = { file: reader.file, size: reader.size, own: true };
          end = until === undefined ? r.size : Math.min(until, r.size);
        }
        start = (await refind(r, start)) ?? { offset: r.size, id: "" };
      }
    } finally {
      if (r !== held) r.file.close();
    }
  }
}

/** The log as one read sees it: its file and its size when the read began. */
interface LogView {
  file: Deno.FsFile;
  size: number;
  /** Opened for this read alone: closed after it. */
  own: boolean;
}
