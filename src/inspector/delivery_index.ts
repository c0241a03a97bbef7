/**
 * The inspector's delivery states, in memory bounded whatever the length of
 * `.hooktap/deliveries.jsonl`: a summary per event (./delivery_fold.ts, a
 * few facts per target) kept only for the events it showed last (at most
 * {@linkcode DEFAULT_CAPACITY}, least recently shown dropped first). An
 * event not kept is read when asked, the way `logs` reads the events it
 * shows ({@linkcode readDeliveriesOf}: backward from the log's end, only its
 * lines parsed, stopping a day before it arrived); what the log appends
 * afterwards is read once, forward, and folded into the kept summaries. The
 * summaries are of the log up to one offset (a line start), so a read and a
 * refresh never count a record twice; a log that shrank or was replaced
 * (deleted, made again) starts them over.
 *
 * An event `dev`'s live feed tells is kept at once with no record (it is
 * told before it can be forwarded), and the refreshes fold in its attempts.
 * Otherwise a recent event is read from a mark: events stored after a
 * refresh have no record before the size that refresh saw, so the index
 * notes (time, size) marks and reads an event that arrived after one from
 * there, not a day back. An event's records start after it arrived by its
 * id's clock: a mark counts only for events that arrived
 * {@linkcode MARK_MARGIN_MS} after it (a clock set back further than that
 * could hide records).
 *
 * A `delivery=` filter's candidates, many and each older than the last,
 * are read in one backward pass over the log that goes on from batch to
 * batch and page to page ({@linkcode DeliveryIndex.along}).
 * @module
 */
import type { DeliveryRecord } from "../event/delivery.ts";
import { deliveriesAlong, factOf, readAppended, readDeliveriesOf } from "../send/deliveries_read.ts";
import type { DeliveryFact, EventDelivery } from "../send/delivery_state.ts";
import { idTime } from "../store/read/line_key.ts";
import type { StorePaths } from "../store/paths.ts";
import {
  type DeliveryFold,
  type DeliverySubject,
  foldedDelivery,
  foldFact,
  newFold,
  subjectOf,
} from "./delivery_fold.ts";
import { scanBackward } from "../store/read/lines.ts";

/**
 * Summaries kept (a quarter more at most, dropped in bulk): the rows of a few list pages (at most 1,000 each)
 * and of the live stream. About a kilobyte each (measured): 5 MB at most.
 */
export const DEFAULT_CAPACITY = 4096;
/** How long after a mark an event must have arrived for its records to be read from the mark on. */
export const MARK_MARGIN_MS = 60_000;
/** Marks kept, at least {@linkcode MARK_EVERY_MS} apart. */
const MARKS = 128;
const MARK_EVERY_MS = 1000;

/** The delivery states of a store, for a reader that stays open (the inspector). */
export interface DeliveryIndex {
  /** Reads what was appended since the last call (calls at once share one read). */
  refresh(): Promise<void>;
  /**
   * The summaries of `events` (./delivery_state.ts's model), as of the last refresh. `keep`: kept for the
   * next asks (the rows shown); else read and dropped (a filter's look at many events).
   */
  deliveriesOf(
    events: readonly DeliverySubject[],
    options?: { keep?: boolean },
  ): Promise<Map<string, EventDelivery>>;
  /**
   * A scan's reader of states: events asked in batches, each older than the ones before (a `delivery=`
   * filter's candidates), read in one backward pass over the log ({@linkcode deliveriesAlong}); the
   * summaries are kept as by `deliveriesOf`. The scan that asks with the `key` the last one was left with
   * (the next page of the same filter) goes on with its pass.
   */
  along(key: string): AlongStates;
  /** Every attempt for one event, in order (read now, whole). */
  attemptsOf(id: string): Promise<DeliveryRecord[]>;
  /**
   * Keeps `event` as having no record yet: an event told before any record of it can be appended (a live
   * feed's, ./live.ts `beforeDeliveries`); the refreshes fold in what comes. Nothing before the
   * first read (its state is then read when asked).
   */
  track(event: DeliverySubject): void;
  /** Whether the summary of event `id` is kept (asking for it reads nothing). */
  has(id: string): boolean;
  /** Summaries kept now (at most the capacity). */
  readonly kept: number;
}

/** A scan's reader of states ({@linkcode DeliveryIndex.along}). */
export interface AlongStates {
  /** The summaries of `events`; those `keep` takes are kept (the rows shown). */
  deliveriesOf(
    events: readonly DeliverySubject[],
    keep: (delivery: EventDelivery) => boolean,
  ): Promise<Map<string, EventDelivery>>;
  /** What a next scan asks with to go on with this one's pass. */
  key: string;
}

/** Options of {@linkcode deliveryIndex}. */
export interface DeliveryIndexOptions {
  /** Summaries kept at most. @default DEFAULT_CAPACITY */
  capacity?: number;
  /** The clock of the marks. @default Date.now */
  now?: () => number;
}

/** Bytes at the log's start that tell one log from another (its first record's id is in them). */
const HEAD = 64;

/**
 * The log's size and its first bytes (an append-only log keeps them: other ones are another log, deleted and
 * made again); 0 and none while there is no log.
 */
async function _stat(path: string): Promise<{ size: number; head: string }> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch {
    return { size: 0, head: "" };
  }
  using f = file;
  const size = (await f.stat()).size;
  const buf = new Uint8Array(Math.min(HEAD, size));
  let got = 0;
  while (got < buf.length) {
    const n = await f.read(buf.subarray(got));
    if (n === null) break;
    got += n;
  }
  return { size, head: new TextDecoder().decode(buf.subarray(0, got)) };
}

/** Where the last whole line of the log at `path` ends, at or before `size` (after `from`, a line start). */
async function _lastLineEnd(path: string, from: number, size: number): Promise<number> {
  if (size <= from) return from;
  using file = await Deno.open(path, { read: true });
  for await (const line of scanBackward(file, size, { start: from, background: true })) {
    return line.torn ? line.start : size; // a last line without its newline is not a record yet
  }
  return from;
}

/** When an event arrived (the earlier of its id's time and `receivedAt`), ms; `NaN` when neither reads. */
function _arrived(e: DeliverySubject): number {
  const t = Math.min(idTime(e.id), Date.parse(e.receivedAt));
  return Number.isNaN(idTime(e.id)) || Number.isNaN(Date.parse(e.receivedAt)) ? NaN : t;
}

/** A mark: when the log had `size` bytes (whatever arrives after `time` is appended after them). */
interface Mark {
  time: number;
  size: number;
}

/** The offset from which the records of `events` are all in the log (0 when no mark tells). */
function _startOf(marks: readonly Mark[], events: readonly DeliverySubject[]): number {
  let oldest = Infinity;
  for (const e of events) oldest = Math.min(oldest, _arrived(e)); // NaN: no mark
  if (Number.isNaN(oldest)) return 0;
  let start = 0;
  for (const m of marks) if (m.time <= oldest - MARK_MARGIN_MS) start = m.size;
  return start;
}

/**
 * Drops the least recently shown of `kept` once it holds a quarter more than `capacity`, down to `capacity`,
 * in one pass: a map's first key is found by walking past the entries deleted before it, so dropping one at
 * a time would cost a walk per event.
 */
function _evict(kept: Map<string, DeliveryFold>, capacity: number): void {
  if (kept.size <= capacity + (capacity >> 2)) return;
  let drop = kept.size - capacity;
  for (const id of kept.keys()) {
    if (drop-- <= 0) break;
    kept.delete(id);
  }
}

/**
 * The summaries of `events`: the ones in `kept` (least recently shown first) as they are, the others from
 * what `load` reads of them; those `keep` takes are kept, at most `capacity`.
 */
async function _summaries(
  kept: Map<string, DeliveryFold>,
  capacity: number,
  events: readonly DeliverySubject[],
  keep: (delivery: EventDelivery) => boolean,
  load: (missing: DeliverySubject[]) => Promise<Map<string, DeliveryFact[]>>,
): Promise<Map<string, EventDelivery>> {
  const folds = new Map<string, DeliveryFold>();
  const missing: DeliverySubject[] = [];
  for (const e of events) {
    const fold = kept.get(e.id);
    if (fold !== undefined) {
      kept.delete(e.id); // shown again: the most recent
      kept.set(e.id, fold);
      folds.set(e.id, fold);
    } else if (!folds.has(e.id)) {
      folds.set(e.id, newFold(subjectOf(e)));
      missing.push(e);
    }
  }
  if (missing.length > 0) {
    for (const [id, list] of await load(missing)) {
      const fold = folds.get(id)!;
      for (const fact of list) foldFact(fold, fact);
    }
  }
  const out = new Map<string, EventDelivery>();
  for (const [id, fold] of folds) out.set(id, foldedDelivery(fold));
  for (const e of missing) if (keep(out.get(e.id)!)) kept.set(e.id, folds.get(e.id)!);
  _evict(kept, capacity);
  return out;
}

/**
 * The delivery index of a store (nothing is read until asked). Works, knowing nothing, while there is
 * no log.
 */
export function deliveryIndex(
  paths: Pick<StorePaths, "deliveries">,
  options: DeliveryIndexOptions = {},
): DeliveryIndex {
  const path = paths.deliveries;
  const capacity = Math.max(1, options.capacity ?? DEFAULT_CAPACITY);
  const now = options.now ?? Date.now;
  /** Least recently shown first. */
  const kept = new Map<string, DeliveryFold>();
  /** The summaries are of the log's `[0, pos)`; `undefined` until the first read. */
  let pos: number | undefined;
  const marks: Mark[] = [];
  /** Counts the times the log shrank or was replaced: a pass over it begun before is void. */
  let generation = 0;
  // One read at a time: a refresh moves `pos`, which every read of events goes up to.
  let queue: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(run: () => Promise<T>): Promise<T> => {
    const next = queue.then(run);
    queue = next.catch(() => {});
    return next;
  };

  /** The log's first bytes at the last read. */
  let known = "";
  const read = async () => {
    const { size, head } = await _stat(path);
    const time = now(); // after the size was seen: whatever arrives later is appended after it
    const replaced = !head.startsWith(known) && !known.startsWith(head);
    if (pos !== undefined && (size < pos || replaced)) { // shrunk or replaced: start over
      kept.clear();
      marks.length = 0;
      pos = undefined;
      generation++;
    }
    known = head;
    if (pos === undefined || kept.size === 0) pos = await _lastLineEnd(path, pos ?? 0, size);
    else {
      pos = await readAppended(path, pos, size, (event) => kept.has(event), (event, fact) => {
        const fold = kept.get(event);
        if (fold !== undefined) foldFact(fold, fact);
      });
    }
    const lastMark = marks[marks.length - 1];
    if (lastMark === undefined || time - lastMark.time >= MARK_EVERY_MS) {
      marks.push({ time, size });
      if (marks.length > MARKS) marks.shift();
    }
  };
  let busy: Promise<void> | undefined;
  const refresh = () => {
    busy ??= exclusive(read).catch(() => {}).finally(() => (busy = undefined));
    return busy;
  };

  /** Reads the records of `missing` from the log's end (from a mark, when one tells) up to `pos`. */
  const load = async (missing: DeliverySubject[]) => {
    const start = _startOf(marks, missing);
    if (start >= pos!) return new Map<string, DeliveryFact[]>();
    return await readDeliveriesOf<DeliveryFact>(path, missing, {
      background: true,
      start,
      end: pos!,
      as: factOf,
    });
  };

  const deliveriesOf = (events: readonly DeliverySubject[], o: { keep?: boolean } = {}) =>
    exclusive(async () => {
      if (pos === undefined) await read();
      return await _summaries(kept, capacity, events, () => o.keep === true, load);
    });

  let lastAlong: AlongStates | undefined;
  const along = (key: string): AlongStates => {
    if (lastAlong !== undefined && lastAlong.key === key) return lastAlong;
    let end: number | undefined;
    let reader: ReturnType<typeof deliveriesAlong<DeliveryFact>> | undefined;
    let of = generation;
    // A scan's first batch is read as the rows are (a first page often ends within it); the pass, which
    // holds the records of older events as it goes, starts with the second.
    let first = true;
    const states: AlongStates = {
      key,
      deliveriesOf: (events, keep) =>
        exclusive(async () => {
          if (pos === undefined) await read();
          if (first) {
            first = false;
            return await _summaries(kept, capacity, events, keep, load);
          }
          if (of !== generation) { // pruned since: start over
            of = generation;
            end = undefined;
            reader = undefined;
          }
          end ??= pos!;
          reader ??= deliveriesAlong<DeliveryFact>(path, { end, as: factOf });
          return await _summaries(kept, capacity, events, keep, async (missing) => {
            const facts = new Map(await reader!.next(missing)); // its lists are the pass's: not changed
            if (pos! > end!) { // what the log appended since the pass began (the pass's lists left as read)
              const ids = new Set(missing.map((e) => e.id));
              await readAppended(path, end!, pos!, (id) => ids.has(id), (event, fact) => {
                facts.set(event, [...facts.get(event) ?? [], fact]);
              });
            }
            return facts;
          });
        }),
    };
    lastAlong = states;
    return states;
  };

  return {
    refresh,
    deliveriesOf,
    along,
    async attemptsOf(id) {
      return (await readDeliveriesOf(path, [{ id }], { background: true })).get(id) ?? [];
    },
    track(event) {
      if (pos === undefined || kept.has(event.id)) return;
      kept.set(event.id, newFold(subjectOf(event)));
      _evict(kept, capacity);
    },
    has: (id) => kept.has(id),
    get kept() {
      return kept.size;
    },
  };
}
