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
import { lineEndpoint, lineId } from "../store/read/line_key.ts";
import { scanBackward, scanForward } from "../store/read/lines.ts";
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
}

const SCAN = { background: true };
const decoder = new TextDecoder();
/**
 * The read-back's scan, done while the app is slower than the senders, about once per window of events: a
 * first read about the size of a window of ordinary events, whole lines up to 64 KiB handed out as views of
 * it (a larger line alone is read again to be parsed), and synchronous calls. The events read back were
 * written moments ago and are in the page cache: a synchronous read of 256 KiB costs ~4 µs of the main
 * thread, an async one ~15 µs and two hand-offs to a worker thread (bench: forward read-back, issue 36).
 */
const READ = { background: false, chunkSize: 256 * 1024, headBytes: 64 * 1024 };

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
  async function refind(r: NonNullable<Awaited<ReturnType<typeof openStoreReader>>>, from: Place) {
    for await (const line of scanForward(r.file, 0, r.size, SCAN)) {
      const id = lineId(line.head);
      if (id !== undefined && id >= from.id) return { offset: line.start, id };
    }
    return undefined;
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
    async read(from, endpoint, visit, until) {
      const reader = await openStoreReader(paths);
      if (reader === null) return { next: from };
      using r = reader;
      let start = from;
      if (start.id === "" && start.offset > r.size) start = { offset: r.size, id: "" };
      const end = until === undefined ? r.size : Math.min(until, r.size);
      // The place is checked on the scan's first line, not by a read of its own.
      let check = start.id !== "";
      for (;;) {
        let next = Math.max(start.offset, Math.min(end, r.size));
        let moved = false;
        for await (const line of scanForward(r.file, start.offset, end, READ)) {
          if (check) {
            check = false;
            if (line.start !== start.offset || lineId(line.head) !== start.id) {
              // The log was rewritten under us (prune): find the place again by id.
              start = (await refind(r, start)) ?? { offset: r.size, id: "" };
              moved = true;
              break;
            }
          }
          if (line.torn) break; // still being written: read again later
          next = line.start + line.length + 1;
          const id = lineId(line.head);
          if (id === undefined || lineEndpoint(line.head) !== endpoint) continue;
          // A line whole in the read (nearly every one) is parsed at once, without a promise per event.
          const event = line.head.length >= line.length
            ? parseEventLine(decoder.decode(line.head))
            : await r.parse(line);
          if (event === undefined) continue;
          const place = { offset: line.start, id: event.id };
          if (visit(event, place) === "stop") return { stopped: place, next: place };
        }
        if (check) {
          // Nothing at the place any more: the log was cut shorter under us.
          check = false;
          start = (await refind(r, start)) ?? { offset: r.size, id: "" };
          moved = true;
        }
        if (!moved) return { next: { offset: next, id: "" } };
      }
    },
  };
}
