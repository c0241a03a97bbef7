/**
 * Filtered scans of the event log, forwards (`logs --count`, `export`, bulk
 * `replay`) or backwards from its end (`logs --grep`: the newest matches
 * first, reading no more than it must). The log is read in large chunks and
 * each chunk decoded to text once; when the filter has an anchor (a pattern
 * every matching line holds, such as the `--grep` term) it is searched over
 * the whole chunk and only the lines around its hits are looked at, so most
 * lines are never split out, let alone parsed. Memory holds one chunk (and a
 * line longer than it), never the file.
 * @module
 */
import { concatBytes } from "../../bytes.ts";
import { type CapturedEvent, parseEventLine } from "../../event/record.ts";
import type { CompiledFilter } from "../../query/filter.ts";
import { ID_LENGTH, idTime } from "./line_key.ts";
import { readAt } from "./lines.ts";
import type { StoreReader } from "./reader.ts";

/** A matching line: its event and its exact text (the stored line without its newline). */
export interface ScanMatch {
  event: CapturedEvent;
  line: string;
}

/** Options of the scans. */
export interface ScanOptions {
  /** Largest read, in bytes. @default 1 MiB */
  chunkSize?: number;
  /** Stops the scan. */
  signal?: AbortSignal;
  /** Only counting: a line whose id and endpoint settle the filter is not parsed (its `event` is unset). */
  countOnly?: boolean;
  /** Read without blocking the event loop (a server's reads). @default false */
  background?: boolean;
}

/** Options of {@linkcode scanBackward}. */
export interface BackwardOptions extends ScanOptions {
  /** Only lines that end before this byte offset (a line start, such as a page's cursor). @default the log's size */
  end?: number;
  /**
   * Bytes read at most (a long line is still read to its start): the scan
   * then ends, and returns where it stopped so a next scan can go on from there.
   */
  budget?: number;
}

/** A match of {@linkcode scanBackward}: also where its line starts. */
export interface BackwardMatch extends ScanMatch {
  /** Byte offset of the line's first byte. */
  readonly start: number;
}

const HEAD = '{"v":1,"id":"';
const ID_AT = HEAD.length;
const V2_HEAD = '{"v":2,"id":"';
/** A v1 or v2 record's head at `s`. */
const _isHead = (text: string, s: number) => text.startsWith(HEAD, s) || text.startsWith(V2_HEAD, s);
const ENDPOINT_AT = ID_AT + ID_LENGTH + '","endpoint":'.length;
const MAX_CHUNK = 1024 * 1024;
/** Bytes of a backward scan's chunk decoded at once (more when one line is longer). */
const PIECE = 64 * 1024;
const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** Verdict on one line: a match, not one, or the end of the scan (past the time range). */
type LineVerdict = ScanMatch | "no" | "stop";

/** What {@linkcode countMatches} gets for a line whose first bytes already tell it matches. */
const COUNTED = { event: undefined as unknown as CapturedEvent, line: "" };

function _tester(reader: StoreReader, filter: CompiledFilter, backward: boolean, countOnly = false) {
  const endpoint = filter.endpoint === undefined ? undefined : JSON.stringify(filter.endpoint) + ",";
  const timed = filter.sinceMs !== undefined || filter.untilMs !== undefined;
  // Tests the line text[s, e) in place: only a line that gets this far is cut out of the chunk.
  return (text: string, s: number, e: number, at: () => number): LineVerdict => {
    if (!_isHead(text, s) || text.charCodeAt(s + ID_AT + ID_LENGTH) !== 0x22 || e - s < ENDPOINT_AT) {
      reader.skippedAt.add(at());
      return "no";
    }
    if (timed) {
      const t = idTime(text.slice(s + ID_AT, s + ID_AT + ID_LENGTH));
      if (filter.sinceMs !== undefined && t < filter.sinceMs) return backward ? "stop" : "no";
      if (filter.untilMs !== undefined && t >= filter.untilMs) return backward ? "no" : "stop";
    }
    if (endpoint !== undefined && !text.startsWith(endpoint, s + ENDPOINT_AT)) return "no";
    if (countOnly && !filter.needsParse && !filter.hasLineTest) return COUNTED;
    const line = text.slice(s, e);
    if (!filter.line(line)) return "no";
    if (countOnly && !filter.needsParse) return COUNTED;
    if (countOnly && filter.lineExact !== undefined) {
      const decided = filter.lineExact(line);
      if (decided !== undefined) return decided ? COUNTED : "no";
    }
    const event = parseEventLine(line);
    if (event === undefined) {
      reader.skippedAt.add(at());
      return "no";
    }
    return filter.event(event) ? { event, line } : "no";
  };
}

/**
 * A backward match whose start is worked out only when asked (a page's last
 * match): otherwise it would cost an encoding of the piece for a non-ASCII
 * one. A class, so every match has the same shape (V8 makes a hidden class
 * per object given its own getter, and keeps them).
 */
class _BackwardMatch implements BackwardMatch {
  readonly event: CapturedEvent;
  readonly line: string;
  #at: () => number;
  constructor(match: ScanMatch, at: () => number) {
    this.event = match.event;
    this.line = match.line;
    this.#at = at;
  }
  get start(): number {
    return this.#at();
  }
}

/** Line bounds `[start, end)` in `text` (every line ends with "\n"), in text order. */
function _candidates(text: string, anchor: RegExp | undefined, also: string | undefined): [number, number][] {
  const out: [number, number][] = [];
  if (anchor === undefined) {
    for (let s = 0, e = text.indexOf("\n"); e !== -1; s = e + 1, e = text.indexOf("\n", s)) out.push([s, e]);
    return out;
  }
  const around = (i: number): [number, number] | undefined => {
    const e = text.indexOf("\n", i);
    return e === -1 ? undefined : [text.lastIndexOf("\n", i - 1) + 1, e];
  };
  anchor.lastIndex = 0;
  for (let m = anchor.exec(text); m !== null; m = anchor.exec(text)) {
    const b = around(m.index);
    if (b === undefined) break;
    out.push(b);
    anchor.lastIndex = b[1] + 1;
  }
  if (also === undefined) return out;
  const extra: [number, number][] = [];
  for (let i = text.indexOf(also); i !== -1; i = text.indexOf(also, i + 1)) {
    const b = around(i);
    if (b === undefined) break;
    extra.push(b);
    i = b[1];
  }
  if (extra.length === 0) return out;
  const seen = new Set(out.map(([s]) => s));
  for (const b of extra) if (!seen.has(b[0])) out.push(b);
  return out.sort((a, b) => a[0] - b[0]);
}

function _global(anchor: RegExp | undefined): RegExp | undefined {
  return anchor === undefined ? undefined : new RegExp(anchor.source, anchor.flags + "g");
}

/** Byte offset of `charAt` in `text` decoded from bytes starting at `base` (only for the rare damaged line). */
function _byteAt(base: number, text: string, charAt: number): number {
  return base + encoder.encode(text.slice(0, charAt)).length;
}

/** The matching lines of the log in log order (oldest first). */
export async function* scanForward(
  reader: StoreReader,
  filter: CompiledFilter,
  options: ScanOptions = {},
): AsyncGenerator<ScanMatch> {
  const chunkSize = options.chunkSize ?? MAX_CHUNK;
  const test = _tester(reader, filter, false, options.countOnly);
  const anchor = _global(filter.anchor);
  let carry = new Uint8Array(0);
  let pos = 0;
  const end = reader.size;
  // One buffer for the whole scan: the piece of line carried over goes first, the next read after it.
  let buf = new Uint8Array(chunkSize + 64 * 1024);
  while (pos < end) {
    if (options.signal?.aborted) return;
    // A line longer than a chunk: read as much again as is carried, so it takes a few doublings.
    const want = Math.min(Math.max(chunkSize, carry.length), end - pos);
    if (buf.length < carry.length + want) buf = new Uint8Array(carry.length + want);
    buf.set(carry, 0);
    const got = await readAt(
      reader.file,
      pos,
      buf.subarray(carry.length, carry.length + want),
      options.background,
    );
    if (got === 0) break;
    const data = buf.subarray(0, carry.length + got);
    const base = pos - carry.length;
    pos += got;
    const lastNl = data.lastIndexOf(0x0a);
    if (lastNl === -1) {
      carry = data.slice();
      continue;
    }
    const text = decoder.decode(data.subarray(0, lastNl + 1));
    carry = data.slice(lastNl + 1);
    for (const [s, e] of _candidates(text, anchor, filter.alsoLinesWith)) {
      const verdict = test(text, s, e, () => _byteAt(base, text, s));
      if (verdict === "stop") return;
      if (verdict !== "no") yield verdict;
    }
  }
  if (carry.length > 0) reader.skippedAt.add(end - carry.length); // torn last line
}

/**
 * The matching lines of the log, newest first. Reads start small and grow, so a near match costs little.
 * @returns the byte offset the scan stopped at (a line start; `0` when it reached the log's start or,
 * with a `since`, the events before it), from which a next scan can go on as `end`.
 */
export async function* scanBackward(
  reader: StoreReader,
  filter: CompiledFilter,
  options: BackwardOptions = {},
): AsyncGenerator<BackwardMatch, number> {
  const maxChunk = options.chunkSize ?? MAX_CHUNK;
  const test = _tester(reader, filter, true);
  const anchor = _global(filter.anchor);
  const end = Math.min(options.end ?? reader.size, reader.size);
  const budget = options.budget ?? Infinity;
  let chunkSize = Math.min(64 * 1024, maxChunk);
  let pos = end;
  // The end of the line that straddles `pos` (up to its newline), in file order, as copies.
  let carry: Uint8Array[] = [];
  let carryLength = 0;
  let buf = new Uint8Array(Math.min(chunkSize, end)); // reused for every read, grown with them
  let first = true;
  while (pos > 0) {
    if (options.signal?.aborted) return pos + carryLength;
    // Within the budget: reads no further than it allows, unless a line is still to be found whole.
    const left = budget - (end - pos);
    const start = Math.max(0, pos - (left > 0 ? Math.min(chunkSize, left) : chunkSize));
    if (buf.length < pos - start) buf = new Uint8Array(pos - start);
    let chunk = buf.subarray(
      0,
      await readAt(reader.file, start, buf.subarray(0, pos - start), options.background),
    );
    pos = start;
    // Reads grow: a near match costs a small read, a line longer than a chunk a few doublings.
    chunkSize = Math.min(chunkSize * 2, Math.max(maxChunk, carryLength));
    if (first) {
      // A last line without a newline is torn (or still being written): never a match.
      const lastNl = chunk.lastIndexOf(0x0a);
      if (lastNl === -1 && start > 0) continue;
      first = false;
      if (lastNl + 1 < chunk.length) reader.skippedAt.add(start + lastNl + 1);
      chunk = chunk.subarray(0, lastNl + 1);
    }
    const nl = start === 0 ? -1 : chunk.indexOf(0x0a);
    if (start > 0 && nl === -1) { // no line starts in this chunk: it is all part of the carried line
      carry.unshift(chunk.slice());
      carryLength += chunk.length;
      continue;
    }
    const from = start === 0 ? 0 : nl + 1;
    const region = carryLength === 0 ? chunk.subarray(from) : concatBytes([chunk.subarray(from), ...carry]);
    carry = start === 0 ? [] : [chunk.slice(0, from)];
    carryLength = from;
    if (region.length === 0) continue;
    const base = start + from;
    // Decoded in pieces from the end, each cut at a line start: a scan that stops after a few
    // matches (a page, `logs`) decodes little more than the lines it looked at.
    for (let pieceEnd = region.length; pieceEnd > 0;) {
      const pieceStart = pieceEnd > PIECE ? region.lastIndexOf(0x0a, pieceEnd - PIECE) + 1 : 0;
      const piece = region.subarray(pieceStart, pieceEnd);
      pieceEnd = pieceStart;
      const text = decoder.decode(piece);
      const pieceBase = base + pieceStart;
      // One UTF-16 unit per byte (ASCII, the usual case): a line's byte offset is its text offset.
      const ascii = text.length === piece.length;
      const bounds = _candidates(text, anchor, filter.alsoLinesWith);
      for (let i = bounds.length - 1; i >= 0; i--) {
        const [s, e] = bounds[i]!;
        const at = () => ascii ? pieceBase + s : _byteAt(pieceBase, text, s);
        const verdict = test(text, s, e, at);
        if (verdict === "stop") return 0;
        if (verdict !== "no") yield new _BackwardMatch(verdict, at);
      }
    }
    if (end - pos >= budget && pos > 0) return base;
  }
  return 0;
}

/** How many events match, over the whole log. */
export async function countMatches(
  reader: StoreReader,
  filter: CompiledFilter,
  options: ScanOptions = {},
): Promise<number> {
  let n = 0;
  for await (const _ of scanForward(reader, filter, { ...options, countOnly: true })) n++;
  return n;
}
