/**
 * The newest events of the log, read backwards from its end: `hooktap logs`
 * reads only the last few lines whatever the file's size, and with filters
 * only as far back as it takes to find `limit` matches.
 * @module
 */
import type { CapturedEvent } from "../../event/record.ts";
import { compileFilter, type EventFilter } from "../../query/filter.ts";
import type { StoreReader } from "./reader.ts";
import { scanBackward } from "./scan.ts";

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
  for await (const { event } of scanBackward(reader, compileFilter(options))) {
    found.push(event);
    if (found.length >= limit) break;
  }
  return found.reverse();
}
