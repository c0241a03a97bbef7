/**
 * The newest event of one endpoint (`hooktap inspect --endpoint NAME`),
 * fast on a log of any size thanks to `.hooktap/index.json`: only the bytes
 * appended after the index was written are scanned, then the indexed id is
 * found by binary search. Without a usable index the log is scanned
 * backwards, and when that scan covered the whole log the index is rebuilt
 * (if the process may write it).
 * @module
 */
import type { CapturedEvent } from "../../event/record.ts";
import { newestPerEndpoint, readIndex } from "../index_file.ts";
import { canWriteIndex, writeIndex } from "../write/index_write.ts";
import type { Line } from "./lines.ts";
import { findByIdPrefix } from "./lookup.ts";
import type { StoreReader } from "./reader.ts";
import { tail } from "./tail.ts";

/** Result of {@linkcode latestOfEndpoint}. */
export interface LatestResult {
  /** The endpoint's newest event, if it has any. */
  event?: CapturedEvent;
  /** Names of the endpoints that have events in the log (all of them when `event` is undefined). */
  endpoints: string[];
  /** Whether the index was used, or the log scanned. */
  via: "index" | "scan";
}

function _sorted(names: Iterable<string>): string[] {
  return [...new Set(names)].sort();
}

/** Parses the endpoint's newest line; if it is damaged, the newest of its lines that is not. */
async function _eventOf(reader: StoreReader, line: Line, name: string): Promise<CapturedEvent | undefined> {
  const event = await reader.parse(line);
  if (event?.endpoint === name) return event;
  return (await tail(reader, { endpoint: name, limit: 1 }))[0];
}

/** Finds the newest event of endpoint `name`. */
export async function latestOfEndpoint(reader: StoreReader, name: string): Promise<LatestResult> {
  const { paths, file, size } = reader;
  const onSkip = (line: { start: number }) => reader.skippedAt.add(line.start);
  const index = await readIndex(paths, file, size);
  if (index !== undefined) {
    let hit: Line | undefined;
    const fresh = await newestPerEndpoint(file, size, {
      start: index.size,
      onFound: (found) => {
        if (found.endpoint === name) hit = found.line;
        return false;
      },
      onSkip,
    });
    const latest = { ...index.latest, ...Object.fromEntries(fresh.latest) };
    if (size > index.size) await writeIndex(paths, { v: 1, size, latest });
    const endpoints = _sorted(Object.keys(latest));
    if (hit !== undefined) {
      const event = await _eventOf(reader, hit, name);
      return event === undefined ? { endpoints, via: "index" } : { event, endpoints, via: "index" };
    }
    const id = index.latest[name];
    if (id === undefined) return { endpoints, via: "index" };
    const found = await findByIdPrefix(reader, { prefix: id, key: (x) => x }, { max: 1 });
    if (found.event?.endpoint === name) return { event: found.event, endpoints, via: "index" };
    // The index names an event that is not there: it is wrong; scan instead.
  }
  // No usable index. When this process may write one, the scan reads every line's head to the
  // start of the log and keeps the index, so that the next lookup at any depth is instant;
  // otherwise it stops at the endpoint's newest line.
  const keep = await canWriteIndex(paths);
  let hit: Line | undefined;
  const scan = await newestPerEndpoint(file, size, {
    onFound: (found) => {
      if (found.endpoint !== name) return false;
      hit = found.line;
      return !keep;
    },
    onSkip,
  });
  if (scan.complete) await writeIndex(paths, { v: 1, size, latest: Object.fromEntries(scan.latest) });
  const endpoints = _sorted(scan.latest.keys());
  const event = hit === undefined ? undefined : await _eventOf(reader, hit, name);
  return event === undefined ? { endpoints, via: "scan" } : { event, endpoints, via: "scan" };
}
