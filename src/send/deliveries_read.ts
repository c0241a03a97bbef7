/**
 * Reading `.hooktap/deliveries.jsonl` back: every record, or the records of
 * some events read from the log's end (commands, tools, and the inspector's
 * index, src/inspector/delivery_index.ts). Lines that are not v1 or v2
 * records are skipped.
 * @module
 */
import { type DeliveryRecord, targetNameOf } from "../event/delivery.ts";
import type { DeliveryFact } from "./delivery_state.ts";
import { senderStatus } from "./answer_note.ts";
import { eachLineBackward, type Line, readLine, scanForward } from "../store/read/lines.ts";
import { idTime, ulidTimeAt } from "../store/read/line_key.ts";

/**
 * Parses one line of `.hooktap/deliveries.jsonl`, or `undefined` when it is not a delivery record.
 * A v1 line (whose `target` was the URL) is read as v2: `url` is that URL and
 * `target` the name derived from it.
 *
 * @example
 * ```ts
 * import { parseDeliveryLine } from "@hooktap/hooktap/testing";
 * for (const line of (await Deno.readTextFile(".hooktap/deliveries.jsonl")).split("\n")) {
 *   const d = parseDeliveryLine(line);
 *   if (d) console.log(d.event, d.attempt, d.status ?? d.error);
 * }
 * ```
 */
export function parseDeliveryLine(line: string): DeliveryRecord | undefined {
  if (line === "") return undefined;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  const d = value as Omit<Partial<DeliveryRecord>, "v"> & { v?: unknown } | null;
  if (
    typeof d !== "object" || d === null || (d.v !== 1 && d.v !== 2) || typeof d.event !== "string" ||
    typeof d.attempt !== "number" || typeof d.target !== "string"
  ) return undefined;
  if (d.v === 1) return { ...d, v: 2, url: d.target, target: targetNameOf(d.target) } as DeliveryRecord;
  if (typeof d.url !== "string") return undefined;
  return d as DeliveryRecord;
}

/** Delivery records are small (a response body is capped at 64 KiB): read whole in the scan. */
const LINES = { headBytes: 256 * 1024 };
/** The same, for a server's background reads. */
const WHOLE = { ...LINES, background: true };
const decoder = new TextDecoder();

async function _text(file: Deno.FsFile, line: Line): Promise<string> {
  return decoder.decode(line.head.length === line.length ? line.head : await readLine(file, line));
}

/** The part of a record the delivery-state model reads (./delivery_state.ts). */
export function factOf(d: DeliveryRecord): DeliveryFact {
  const fact: DeliveryFact = { target: d.target, url: d.url, source: d.source, outcome: d.outcome };
  if (d.status !== undefined) fact.status = d.status;
  if (d.refused === true) fact.refused = true;
  if (d.source === "relay" && d.status !== undefined) {
    const sent = senderStatus(d); // told by its size on a record written before `senderStatus`
    if (sent !== undefined) fact.senderStatus = sent;
  }
  if (d.senderLeft === true) fact.senderLeft = true;
  return fact;
}

/** Where a record's answer starts: its headers (and then a body of up to 64 KiB). */
const HEADERS_KEY = ',"headers":[';

/**
 * What of the record in `line` the delivery-state model reads, with its event's id, or `undefined` when the
 * line is not a record. A record `dev` wrote with an answer has every field the model reads before the
 * answer's headers and body: only that start is parsed (a quote after a comma is never inside a JSON
 * string, so the first `,"headers":[` is the record's own). Any other line is parsed whole.
 */
export function parseFactLine(line: string): { event: string; fact: DeliveryFact } | undefined {
  if (line.startsWith(RECORD_HEAD_TEXT)) {
    const at = line.indexOf(HEADERS_KEY);
    // A field after the answer's headers that the model reads: the whole line is parsed.
    if (
      at !== -1 && line.indexOf('"refused":', at) === -1 && line.indexOf('"senderStatus":', at) === -1 &&
      line.indexOf('"senderLeft":', at) === -1
    ) {
      let d: Partial<DeliveryRecord> | undefined;
      try {
        d = JSON.parse(line.slice(0, at) + "}");
      } catch {
        d = undefined;
      }
      if (
        d !== undefined && typeof d.event === "string" && typeof d.attempt === "number" &&
        typeof d.target === "string" && typeof d.url === "string" && typeof d.source === "string" &&
        typeof d.outcome === "string" && typeof d.status === "number"
      ) return { event: d.event, fact: factOf(d as DeliveryRecord) };
    }
  }
  const record = parseDeliveryLine(line);
  return record === undefined ? undefined : { event: record.event, fact: factOf(record) };
}

/** A line's event and what `as` keeps of its record (the fact alone, read from the line's start, for `factOf`). */
function _parser<T>(
  as: (record: DeliveryRecord) => T,
): (line: string) => { event: string; value: T } | undefined {
  if ((as as unknown) === factOf) {
    return (line) => {
      const got = parseFactLine(line);
      return got === undefined ? undefined : { event: got.event, value: got.fact as T };
    };
  }
  return (line) => {
    const record = parseDeliveryLine(line);
    return record === undefined ? undefined : { event: record.event, value: as(record) };
  };
}

/**
 * Calls `visit` with every record of the deliveries log at `path`, in file order (none when there is no log).
 * Read line by line, never as one string (a log past V8's longest string, ~512 MiB, is still read); commands
 * that show some events read only theirs ({@linkcode readDeliveriesOf}).
 */
export async function eachDelivery(path: string, visit: (record: DeliveryRecord) => void): Promise<void> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  using f = file;
  for await (const line of scanForward(f, 0, (await f.stat()).size, LINES)) {
    const record = parseDeliveryLine(await _text(f, line));
    if (record !== undefined) visit(record);
  }
}

/**
 * Reads the records of the log at `path` in `[from, size)` forward (`from` a line start), calling `visit`
 * with the fact of each record whose event `wanted` takes (told by its first bytes: the others are not
 * parsed; see {@linkcode parseFactLine}), in
 * background reads. Stops before a last line still being written; returns the offset after the last
 * whole line (where the next read goes on). For a reader that keeps up with the log (the inspector).
 */
export async function readAppended(
  path: string,
  from: number,
  size: number,
  wanted: (event: string) => boolean,
  visit: (event: string, fact: DeliveryFact) => void,
): Promise<number> {
  let pos = from;
  if (size <= from) return pos;
  using file = await Deno.open(path, { read: true });
  const keys: RecordKeys = { time: 0, eventTime: 0, eventAt: 0 };
  for await (const line of scanForward(file, from, size, WHOLE)) {
    if (line.torn) break;
    pos = line.start + line.length + 1;
    if (
      recordKeys(line.head, 0, line.head.length, keys) &&
      !wanted(decoder.decode(line.head.subarray(keys.eventAt, keys.eventAt + ID_BYTES)))
    ) continue;
    const got = parseFactLine(await _text(file, line));
    if (got !== undefined && wanted(got.event)) visit(got.event, got.fact);
  }
  return pos;
}

/**
 * How far before the oldest event asked about a backward read of the log looks. A record is appended when
 * its attempt ends, so it may follow records of attempts that started after it, by at most the longest
 * attempt (a target's timeout); a day is far past any timeout, and the margin for a clock set back.
 */
export const RECORD_LAG_MS = 24 * 60 * 60 * 1000;

const ascii = new TextEncoder();
/** Every record starts so (`v` 1 or 2), then `dlv_YYYYMMDD_<ULID>` (JSON.stringify keeps the record's order). */
const RECORD_HEAD_TEXT = '{"v":2,"id":"dlv_';
const RECORD_HEAD_V1 = '{"v":1,"id":"dlv_';
/** Between the delivery's id and its event's id. */
const EVENT_KEY_TEXT = '","event":"evt_';
const RECORD_HEAD = ascii.encode(RECORD_HEAD_TEXT);
const EVENT_KEY = ascii.encode(EVENT_KEY_TEXT);
/** Both ids are 39 bytes (`dlv_`/`evt_`, 8 digits, `_`, a 26-character ULID). */
const ID_BYTES = 39;
const EVENT_AT = RECORD_HEAD.length - 4 + ID_BYTES + EVENT_KEY.length - 4;

/** What {@linkcode recordKeys} read: the event's id, and when the attempt started (ms). */
export interface RecordKeys {
  /** When the attempt started (its delivery id's time), ms. */
  time: number;
  /** When its event arrived (the event id's time), ms: most lines are told apart by it, undecoded. */
  eventTime: number;
  /** Where the event's id is in the line's bytes (39 bytes), to decode when its time is one asked about. */
  eventAt: number;
}

/**
 * Reads where the event id is, when the event arrived and when the attempt started (ms, from the ids' ULIDs)
 * of the record in `data[start, end)` in place, from its first bytes, into `into`; `false` for a line of
 * another shape (it is then parsed whole).
 */
export function recordKeys(data: Uint8Array, start: number, end: number, into: RecordKeys): boolean {
  if (end - start < EVENT_AT + ID_BYTES + 1 || data[start + EVENT_AT + ID_BYTES] !== 0x22 /* " */) {
    return false;
  }
  for (let i = 0; i < RECORD_HEAD.length; i++) {
    if (data[start + i] !== RECORD_HEAD[i] && !(i === 5 && data[start + i] === 0x31 /* v1 */)) return false;
  }
  const keyAt = start + RECORD_HEAD.length - 4 + ID_BYTES;
  for (let i = 0; i < EVENT_KEY.length; i++) if (data[keyAt + i] !== EVENT_KEY[i]) return false;
  // `dlv_YYYYMMDD_` and `evt_YYYYMMDD_`: each ULID's 10 time characters follow.
  const time = ulidTimeAt(data, start + RECORD_HEAD.length - 4 + 13);
  const eventTime = ulidTimeAt(data, start + EVENT_AT + 13);
  if (Number.isNaN(time) || Number.isNaN(eventTime)) return false;
  into.time = time;
  into.eventTime = eventTime;
  into.eventAt = start + EVENT_AT;
  return true;
}

/**
 * Whether the delivery id of the record in `data` at `start` (read by {@linkcode recordKeys}) has the date of
 * its ULID's time `time` (a day either way): a hand-made id is not a time to trust (never a reason to stop).
 */
function _idDated(data: Uint8Array, start: number, time: number): boolean {
  const dateAt = start + RECORD_HEAD.length; // `dlv_` then YYYYMMDD, as the id factory writes it
  const day = decoder.decode(data.subarray(dateAt, dateAt + 8));
  const dayMs = 86_400_000;
  // The UTC date as the id factory writes it (src/event/id.ts `utcDay`, not imported: `logs` reads no more modules).
  return [time - dayMs, time, time + dayMs].some((t) =>
    new Date(t).toISOString().slice(0, 10).replaceAll("-", "") === day
  );
}

/** The event id of a record's line read as text, in place (see {@linkcode recordKeys}), or `undefined`. */
export function recordEvent(line: string): string | undefined {
  if (line.length < EVENT_AT + ID_BYTES + 1 || line.charCodeAt(EVENT_AT + ID_BYTES) !== 0x22 /* " */) {
    return undefined;
  }
  if (!line.startsWith(RECORD_HEAD_TEXT) && !line.startsWith(RECORD_HEAD_V1)) return undefined;
  if (!line.startsWith(EVENT_KEY_TEXT, RECORD_HEAD.length - 4 + ID_BYTES)) return undefined;
  return line.slice(EVENT_AT, EVENT_AT + ID_BYTES);
}

/** When an event was stored (the earlier of its `receivedAt` and its id's time), ms; `NaN` when neither reads. */
function _storedAt(event: { id: string; receivedAt?: string }): number {
  const times = [idTime(event.id), event.receivedAt === undefined ? NaN : Date.parse(event.receivedAt)]
    .filter((t) => !Number.isNaN(t));
  return times.length === 0 ? NaN : Math.min(...times);
}

/** Options of {@linkcode readDeliveriesOf}. */
export interface ReadOfOptions<T> {
  /** Reads that let a server's event loop run between them (else synchronous). */
  background?: boolean;
  /** Only the lines that start at or after this byte offset (a line start, or inside a line not theirs). */
  start?: number;
  /** Only the lines that end before this byte offset (a line start). @default the log's size */
  end?: number;
  /**
   * What to keep of each record (parsed whole, then dropped): the record itself by default; with
   * {@linkcode factOf}, only the record's start is parsed ({@linkcode parseFactLine}).
   */
  as?: (record: DeliveryRecord) => T;
}

/**
 * The records of `events` by event id, each in file order: what `logs`, `inspect` and the tools need for
 * the events they show. Read from the log's end backward, a line is parsed only when its event is one of
 * them (told by its first bytes), and the read stops at the first record that started
 * {@linkcode RECORD_LAG_MS} before the oldest of them was stored: no attempt of an event starts before
 * the event arrived, so one event costs the records written since it arrived, not the whole history, and
 * memory holds only its records. Read synchronously (a command has nothing else to do), or with
 * `background` by reads that let a server's event loop run between them (the inspector inside `dev`).
 */
export async function readDeliveriesOf<T = DeliveryRecord>(
  path: string,
  events: readonly { id: string; receivedAt?: string }[],
  options: ReadOfOptions<T> = {},
): Promise<Map<string, T[]>> {
  const out = new Map<string, T[]>();
  const as = options.as ?? ((r: DeliveryRecord) => r as T);
  if (events.length === 0) return out;
  const wanted = new Set(events.map((e) => e.id));
  // The ids' own times: a line whose event time is outside them is not theirs (no id to decode).
  let first = Infinity, last = -Infinity;
  for (const e of events) {
    const t = idTime(e.id);
    first = Number.isNaN(t) ? -Infinity : Math.min(first, t);
    last = Number.isNaN(t) ? Infinity : Math.max(last, t);
  }
  let oldest = Infinity;
  for (const e of events) {
    const t = _storedAt(e);
    oldest = Number.isNaN(t) ? -Infinity : Math.min(oldest, t); // a time that cannot be read: read it all
  }
  const floor = oldest - RECORD_LAG_MS;
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return out;
    throw error;
  }
  using f = file;
  const size = Math.min((await f.stat()).size, options.end ?? Infinity);
  const from = options.start ?? 0;
  const keys: RecordKeys = { time: 0, eventTime: 0, eventAt: 0 };
  /** `"stop"` at the first record from before the oldest event; the line's text when it is to be parsed. */
  const look = (data: Uint8Array, start: number, end: number): "stop" | "skip" | "parse" => {
    if (!recordKeys(data, start, end, keys)) return "parse";
    if (keys.time < floor) return _idDated(data, start, keys.time) ? "stop" : "parse"; // a day before them
    if (keys.eventTime < first || keys.eventTime > last) return "skip";
    return wanted.has(decoder.decode(data.subarray(keys.eventAt, keys.eventAt + ID_BYTES)))
      ? "parse"
      : "skip";
  };
  const parse = _parser(as);
  const take = (text: string) => {
    const got = parse(text);
    if (got === undefined || !wanted.has(got.event)) return;
    const list = out.get(got.event);
    if (list === undefined) out.set(got.event, [got.value]);
    else list.push(got.value);
  };
  await eachLineBackward(f, size, (data, start, end) => {
    const step = look(data, start, end);
    if (step === "parse") take(decoder.decode(data.subarray(start, end)));
    return step === "stop";
  }, { from, background: options.background === true || from > 0 });
  for (const list of out.values()) list.reverse();
  return out;
}

/** Options of {@linkcode deliveriesAlong}. */
export interface AlongOptions<T> {
  /** Only the lines that end before this byte offset (a line start). @default the log's size at the first batch */
  end?: number;
  /** What to keep of each record (parsed whole, then dropped): the record itself by default. */
  as?: (record: DeliveryRecord) => T;
  /**
   * Records of older events held for the next batches, at most; past it, nothing more is held and each
   * next batch is read from the log's end ({@linkcode readDeliveriesOf}). @default 32,768
   */
  hold?: number;
}

/** `out` with an empty list for each of `events` it has none for. */
function _every<T>(out: Map<string, T[]>, events: readonly { id: string }[]): Map<string, T[]> {
  for (const e of events) if (!out.has(e.id)) out.set(e.id, []);
  return out;
}

/** A reader of the records of events met newest first, batch after batch ({@linkcode deliveriesAlong}). */
export interface DeliveriesAlong<T> {
  /** The records of `events` by event id (every one of them: `[]` for none), each in file order. */
  next(events: readonly { id: string; receivedAt?: string }[]): Promise<Map<string, T[]>>;
}

/**
 * The records of events asked in batches, each batch older than the ones before (a scan of the store from
 * its end, such as a filter on delivery states over the whole store), read in one backward pass over the
 * log instead of one from its end per batch. Each batch is read back to a day before its oldest event, as
 * {@linkcode readDeliveriesOf} reads; the records met on the way of events older than the batch are held
 * for the batches to come (up to `hold`): a later batch has every record of its events from the lines
 * already passed, and reads on from where the last one stopped. An event not older than every batch before
 * (a store whose ids go back in time) is read on its own, from the end; one of the last batch is answered
 * as it was (a next page that starts inside the last one's batch). Memory holds a batch's records and the
 * held ones, never the log. The lists handed out are not to be changed.
 */
export function deliveriesAlong<T = DeliveryRecord>(
  path: string,
  options: AlongOptions<T> = {},
): DeliveriesAlong<T> {
  const as = options.as ?? ((r: DeliveryRecord) => r as T);
  const parse = _parser(as);
  const limit = options.hold ?? 32_768;
  let end = options.end;
  /** The lines before it are not read yet. */
  let cursor: number | undefined;
  /** Records (last first) of events older than every batch so far, met in the lines after `cursor`. */
  const held = new Map<string, T[]>();
  let heldCount = 0;
  /** The oldest id time of the batches so far: what is held is of the events older than it. */
  let below = Infinity;
  /** Whether `held` has all of them (else every batch reads from the end). */
  let whole = true;
  /** The last batch's answer. */
  let previous = new Map<string, T[]>();
  /** The pass's read buffer, from batch to batch. */
  const reuse: { buf?: Uint8Array } = {};
  return {
    async next(events) {
      const out = new Map<string, T[]>();
      if (events.length === 0) return out;
      if (end === undefined) {
        try {
          end = (await Deno.stat(path)).size;
        } catch (error) {
          if (error instanceof Deno.errors.NotFound) end = 0;
          else throw error;
        }
      }
      cursor ??= end;
      const along: { id: string; receivedAt?: string }[] = [];
      const alone: { id: string; receivedAt?: string }[] = [];
      for (const e of events) {
        const before = previous.get(e.id);
        if (before !== undefined) out.set(e.id, before);
        else (whole && idTime(e.id) < below ? along : alone).push(e);
      }
      if (alone.length > 0) {
        for (const [id, list] of await readDeliveriesOf(path, alone, { background: true, end, as })) {
          out.set(id, list);
        }
      }
      if (along.length === 0) return previous = _every(out, events);
      const wanted = new Set(along.map((e) => e.id));
      let first = Infinity, last = -Infinity, oldest = Infinity;
      for (const e of along) {
        const t = idTime(e.id);
        first = Math.min(first, t);
        last = Math.max(last, t);
        const stored = _storedAt(e);
        oldest = Number.isNaN(stored) ? -Infinity : Math.min(oldest, stored);
      }
      const floor = oldest - RECORD_LAG_MS;
      below = first;
      const back = new Map<string, T[]>(); // last first
      for (const id of wanted) {
        const list = held.get(id);
        if (list === undefined) continue;
        back.set(id, list);
        held.delete(id);
        heldCount -= list.length;
      }
      const put = (map: Map<string, T[]>, id: string, value: T) => {
        const list = map.get(id);
        if (list === undefined) map.set(id, [value]);
        else list.push(value);
      };
      const take = (text: string) => {
        const got = parse(text);
        if (got === undefined) return;
        if (wanted.has(got.event)) return put(back, got.event, got.value);
        if (!whole || !(idTime(got.event) < first)) return; // not of a batch to come
        if (heldCount >= limit) { // too many to hold: the next batches read from the end
          whole = false;
          held.clear();
          heldCount = 0;
          return;
        }
        put(held, got.event, got.value);
        heldCount++;
      };
      const keys: RecordKeys = { time: 0, eventTime: 0, eventAt: 0 };
      if (cursor > 0) {
        let file: Deno.FsFile;
        try {
          file = await Deno.open(path, { read: true });
        } catch (error) {
          if (!(error instanceof Deno.errors.NotFound)) throw error;
          return previous = _every(out, events); // no log (removed): no records
        }
        using f = file;
        cursor = await eachLineBackward(f, cursor, (data, start, stop) => {
          let parse = true;
          if (recordKeys(data, start, stop, keys)) {
            if (keys.time < floor && _idDated(data, start, keys.time)) return true; // the next batch's
            if (keys.eventTime >= first && keys.eventTime <= last) {
              parse = wanted.has(decoder.decode(data.subarray(keys.eventAt, keys.eventAt + ID_BYTES)));
            } else parse = whole && keys.eventTime < first;
          }
          if (parse) take(decoder.decode(data.subarray(start, stop)));
          return false;
        }, { background: true, reuse });
      }
      for (const [id, list] of back) out.set(id, list.reverse());
      return previous = _every(out, events);
    },
  };
}
