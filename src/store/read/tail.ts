/**
 * The newest events of the log, read backwards from its end: `hooktap logs`
 * without filters reads only the last few lines, whatever the file's size.
 * @module
 */
import type { CapturedEvent } from "../../event/record.ts";
import { type EventFilter, matchesFilter } from "./filter.ts";
import { endpointMatcher, idTime, lineId } from "./line_key.ts";
import { scanBackward } from "./lines.ts";
import type { StoreReader } from "./reader.ts";

/** Options of {@linkcode tail}. */
export interface TailOptions extends EventFilter {
  /**
   * How many events at most.
   * @default 20
   */
  limit?: number;
}

/**
 * The newest `limit` events that pass the filter, oldest of them first.
 * With `since`, reading stops at the first older event (ids are time-ordered).
 */
export async function tail(reader: StoreReader, options: TailOptions = {}): Promise<CapturedEvent[]> {
  const limit = options.limit ?? 20;
  const found: CapturedEvent[] = [];
  if (limit <= 0) return found;
  const sameEndpoint = options.endpoint === undefined ? undefined : endpointMatcher(options.endpoint);
  const since = options.since?.getTime();
  for await (const line of scanBackward(reader.file, reader.size)) {
    const id = lineId(line.head);
    if (id === undefined || line.torn) {
      reader.skip(line);
      continue;
    }
    if (since !== undefined && idTime(id) < since) break;
    // Cheap byte test first: most lines of a busy store belong to other endpoints.
    if (sameEndpoint !== undefined && !sameEndpoint(line.head)) continue;
    const event = await reader.parse(line);
    if (event === undefined || !matchesFilter(event, options)) continue;
    found.push(event);
    if (found.length >= limit) break;
  }
  return found.reverse();
}
