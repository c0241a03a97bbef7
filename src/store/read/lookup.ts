/**
 * Finds events by id or id prefix without reading the whole log: ids are
 * time-ordered in an append-only file, so a binary search over byte offsets
 * lands on the first candidate line after about log2(size / 64 KiB) probes of
 * a few bytes each. When that finds nothing (a clock that jumped back can put
 * a line out of order), a streaming scan of the whole log makes sure.
 * @module
 */
import { UsageError } from "../../errors.ts";
import type { CapturedEvent } from "../../event/record.ts";
import { ID_PROBE_BYTES, idBytesMatcher, lineId } from "./line_key.ts";
import { type Line, lineStartAtOrAfter, readAt, scanForward } from "./lines.ts";
import type { StoreReader } from "./reader.ts";
import { suggestCommand } from "../../text/command_line.ts";

/** What an id typed on the command line is compared with. */
export interface IdQuery {
  /** Upper-cased prefix to look for. */
  prefix: string;
  /** The part of a stored id the prefix is compared with (whole id, or its ULID). */
  key(id: string): string;
  /** Where in a stored id the prefix starts (0 for whole ids, 13 for ULID prefixes). @default 0 */
  offset?: number;
}

/** A line whose id has the prefix. */
export interface IdMatch {
  id: string;
  /** Byte offset of its line. */
  start: number;
}

/** Result of {@linkcode findByIdPrefix}. */
export interface LookupResult {
  /** Matching ids in log order, at most `max + 1` of them. */
  matches: IdMatch[];
  /** The event, when exactly one line matched. */
  event?: CapturedEvent;
  /** How it was found: by binary search, or by the full scan after a miss. */
  via: "search" | "scan";
}

const ULID_CHARS = /^[0-9A-HJKMNP-TV-Z]+$/;
const WINDOW = 64 * 1024;
/** Bytes read at a time while stepping through the lines near where the search landed. */
const WALK_READ = 16 * 1024;

/**
 * Reads what the user typed: a prefix of a whole id (`evt_20240501_01HX`) or
 * of its ULID part (`01HX9`), any case.
 * @throws {UsageError} when it cannot be part of an id.
 */
export function parseIdQuery(text: string): IdQuery {
  const t = text.trim();
  const lower = t.toLowerCase();
  if (t !== "" && (lower.startsWith("evt_") || "evt_".startsWith(lower))) {
    const prefix = lower.length <= 4 ? lower : "evt_" + t.slice(4).toUpperCase();
    if (prefix.length <= 4 || /^evt_\d{1,8}$|^evt_\d{8}_[0-9A-HJKMNP-TV-Z]{0,26}$/.test(prefix)) {
      return { prefix, key: (id) => id, offset: 0 };
    }
  } else if (t.length > 0 && t.length <= 26 && ULID_CHARS.test(t.toUpperCase())) {
    return { prefix: t.toUpperCase(), key: (id) => id.slice(13), offset: 13 };
  }
  throw new UsageError(
    `"${text}" is not an event id. Ids look like evt_20240501_01HXA5B7K3M2N4P6Q8R0S2T4V6 ` +
      `(any unique prefix works, with or without evt_YYYYMMDD_); \`${suggestCommand(["logs"])}\` lists them.`,
  );
}

/**
 * Line starts found so far, as `[from, start]`: no line starts in `(from, start)`.
 * A probe that lands inside a line already crossed (a long one) costs nothing.
 */
type Crossed = [number, number][];

async function _lineStart(reader: StoreReader, pos: number, crossed: Crossed): Promise<number> {
  // Read only up to the nearest stretch already crossed after `pos`: its line start is the answer past it.
  let next: [number, number] | undefined;
  for (const known of crossed) {
    if (pos >= known[0] && pos <= known[1]) return known[1];
    if (known[0] > pos && (next === undefined || known[0] < next[0])) next = known;
  }
  const limit = next === undefined ? reader.size : next[0] + 1;
  let start = await lineStartAtOrAfter(reader.file, pos, limit);
  if (next !== undefined && start >= limit) start = next[1];
  crossed.push([pos, start]);
  return start;
}

async function _probe(
  reader: StoreReader,
  pos: number,
  hi: number,
  crossed: Crossed,
): Promise<IdMatch | undefined> {
  const buf = new Uint8Array(ID_PROBE_BYTES);
  let start = await _lineStart(reader, pos, crossed);
  while (start < hi) {
    const got = await readAt(reader.file, start, buf);
    const id = lineId(buf.subarray(0, got));
    if (id !== undefined) return { id, start };
    start = await _lineStart(reader, start + 1, crossed);
  }
  return undefined;
}

type Verdict = "before" | "match" | "after";

function _compare(query: IdQuery, id: string): Verdict {
  const key = query.key(id);
  if (key.startsWith(query.prefix)) return "match";
  return key < query.prefix ? "before" : "after";
}

/** The matches of a full scan (after the search found none: a line out of order). */
async function _collect(
  reader: StoreReader,
  lines: AsyncIterable<Line>,
  query: IdQuery,
  max: number,
): Promise<{ matches: IdMatch[]; first?: Line }> {
  const matches: IdMatch[] = [];
  let first: Line | undefined;
  // Only lines whose id bytes start with the prefix matter: test bytes before decoding.
  const mustMatch = idBytesMatcher(query.prefix, query.offset ?? 0);
  for await (const line of lines) {
    if (!mustMatch(line.head)) continue;
    const id = lineId(line.head);
    if (id === undefined) {
      reader.skip(line);
      continue;
    }
    const verdict = _compare(query, id);
    if (verdict === "match") {
      matches.push({ id, start: line.start });
      first ??= line;
      if (matches.length > max) break;
    }
  }
  return first === undefined ? { matches } : { matches, first };
}

/**
 * The matches from `from` on, found line by line by reading each line's id
 * only and stepping to the next line start: a line is crossed only to reach
 * the next one, so the first id past the range (often right after a huge
 * line's start) ends the walk without reading that line.
 */
async function _walk(
  reader: StoreReader,
  from: number,
  query: IdQuery,
  max: number,
  crossed: Crossed,
): Promise<{ matches: IdMatch[]; first?: Line }> {
  const matches: IdMatch[] = [];
  const buf = new Uint8Array(WALK_READ);
  let data = buf.subarray(0, 0);
  let dataStart = from;
  let first: { start: number; next: number; head: Uint8Array } | undefined;
  let start = from;
  while (start < reader.size) {
    // Short lines are stepped through inside one read; a read starts over only past its end.
    const end = dataStart + data.length;
    if (start < dataStart || (start + ID_PROBE_BYTES > end && end < reader.size)) {
      dataStart = start;
      data = buf.subarray(0, await readAt(reader.file, start, buf));
    }
    const at = start - dataStart;
    const head = data.subarray(at, at + ID_PROBE_BYTES);
    const nl = data.indexOf(0x0a, at);
    const next = () =>
      nl !== -1 ? Promise.resolve(dataStart + nl + 1) : _lineStart(reader, dataStart + data.length, crossed);
    const id = lineId(head);
    if (id === undefined) {
      if (head.length > 0 && head[0] !== 0x0a) reader.skippedAt.add(start); // not an empty line
      start = await next();
      continue;
    }
    const verdict = _compare(query, id);
    if (verdict === "after") break;
    const following = await next();
    if (verdict === "match") {
      matches.push({ id, start });
      first ??= { start, next: following, head: head.slice() };
      if (matches.length > max) break;
    }
    start = following;
  }
  if (first === undefined) return { matches };
  // Its length: up to the next line start (the last line of the file may lack its newline: torn).
  const last = new Uint8Array(1);
  await readAt(reader.file, first.next - 1, last);
  const torn = last[0] !== 0x0a;
  const length = first.next - first.start - (torn ? 0 : 1);
  return { matches, first: { start: first.start, length, head: first.head.subarray(0, length), torn } };
}

/**
 * Finds the events whose id starts with `query`.
 * @param max how many matches to report at most (one more is read, to know there are more).
 */
export async function findByIdPrefix(
  reader: StoreReader,
  query: IdQuery,
  options: { max?: number } = {},
): Promise<LookupResult> {
  const max = options.max ?? 20;
  let lo = 0;
  let hi = reader.size;
  const crossed: Crossed = [];
  while (hi - lo > WINDOW) {
    const mid = Math.floor((lo + hi) / 2);
    const probe = await _probe(reader, mid, hi, crossed);
    if (probe === undefined || _compare(query, probe.id) !== "before") hi = mid;
    else lo = probe.start + 1;
  }
  const from = await _lineStart(reader, lo, crossed);
  let via: LookupResult["via"] = "search";
  let found = await _walk(reader, from, query, max, crossed);
  if (found.matches.length === 0) {
    via = "scan";
    found = await _collect(reader, scanForward(reader.file, 0, reader.size), query, max);
  }
  const result: LookupResult = { matches: found.matches, via };
  if (found.matches.length === 1 && found.first !== undefined) {
    const event = await reader.parse(found.first);
    if (event !== undefined) result.event = event;
  }
  return result;
}
