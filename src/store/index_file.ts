/**
 * `.hooktap/index.json`: the latest event id of each endpoint, for the first
 * `size` bytes of the event log. It lets `inspect --endpoint NAME` find an
 * endpoint's last event at once even when it lies at the start of a huge
 * log: read the index, scan only the bytes appended after `size`, then look
 * the indexed id up by binary search.
 *
 * The index is a cache: `hooktap dev` keeps it current, a reader that may
 * write repairs it, and everything works (more slowly) without it. A reader
 * without write permission just skips writing it. Writing it is
 * `write/index_write.ts`'s (a reader such as `logs` never loads the writer).
 * @module
 */
import { EVENT_ID_PATTERN } from "../event/id.ts";
import { endpointMatcher, lineEndpoint, lineId } from "./read/line_key.ts";
import { type Line, readAt, scanBackward } from "./read/lines.ts";
import type { StorePaths } from "./paths.ts";

/** Contents of `.hooktap/index.json` (format 1). */
export interface StoreIndex {
  v: 1;
  /** Bytes of `events.jsonl` the index covers: `[0, size)`, ending at a line end. */
  size: number;
  /** Endpoint name → id of its newest event within `[0, size)`. */
  latest: Record<string, string>;
}

/**
 * Reads the index and checks it against the log (open in `events`, of
 * `eventsSize` bytes).
 * @returns `undefined` when it is missing, unreadable, of another format, or
 * does not fit the log (longer than it, or not ending at a line end).
 */
export async function readIndex(
  paths: StorePaths,
  events: Deno.FsFile,
  eventsSize: number,
): Promise<StoreIndex | undefined> {
  let value: unknown;
  try {
    value = JSON.parse(await Deno.readTextFile(paths.index));
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const { v, size, latest } = value as Partial<StoreIndex>;
  if (v !== 1 || !Number.isSafeInteger(size) || size! < 0 || size! > eventsSize) return undefined;
  if (typeof latest !== "object" || latest === null || Array.isArray(latest)) return undefined;
  for (const id of Object.values(latest)) {
    if (typeof id !== "string" || !EVENT_ID_PATTERN.test(id)) return undefined;
  }
  if (size! > 0) {
    const last = new Uint8Array(1);
    await readAt(events, size! - 1, last);
    if (last[0] !== 0x0a) return undefined;
  }
  return { v: 1, size: size!, latest: { ...latest } };
}

/** An endpoint's newest line, as found by {@linkcode newestPerEndpoint}. */
export interface NewestLine {
  id: string;
  endpoint: string;
  /** Its line (read it whole with the reader's `parse`). */
  line: Line;
}

/** Options of {@linkcode newestPerEndpoint}. */
export interface NewestOptions {
  /** Offset the scan stops at (a line start). @default 0 */
  start?: number;
  /** Called with each endpoint's newest line as it is found; return `true` to stop the scan. */
  onFound?: (found: NewestLine) => boolean;
  /** Called with each line that is not a record. */
  onSkip?: (line: Line) => void;
  /** Stops the scan early. */
  signal?: AbortSignal;
  /** Read without blocking the event loop (a server's background rebuild). */
  background?: boolean;
}

/**
 * Scans `[start, end)` of the log backwards and collects the newest id of
 * each endpoint. Only each line's head (id and endpoint) is read; no line is
 * parsed, so one huge event costs no more than a small one.
 * @returns the ids found, and whether the whole range was scanned.
 */
export async function newestPerEndpoint(
  events: Deno.FsFile,
  end: number,
  options: NewestOptions = {},
): Promise<{ latest: Map<string, string>; complete: boolean }> {
  const latest = new Map<string, string>();
  // Byte tests for the endpoints already found: most lines are skipped without decoding anything.
  const seen: ((line: Uint8Array) => boolean)[] = [];
  for await (
    const line of scanBackward(events, end, {
      start: options.start ?? 0,
      background: options.background ?? false,
    })
  ) {
    if (options.signal?.aborted) return { latest, complete: false };
    if (!line.torn && seen.some((test) => test(line.head))) continue;
    const endpoint = line.torn ? undefined : lineEndpoint(line.head);
    const id = endpoint === undefined ? undefined : lineId(line.head);
    if (endpoint === undefined || id === undefined) {
      options.onSkip?.(line);
      continue;
    }
    if (latest.has(endpoint)) continue;
    latest.set(endpoint, id);
    seen.push(endpointMatcher(endpoint));
    // Stopped at the first line of the range: nothing was left unread.
    if (options.onFound?.({ id, endpoint, line })) {
      return { latest, complete: line.start === (options.start ?? 0) };
    }
  }
  return { latest, complete: true };
}
