/**
 * A page of the list, newest first, read backwards from a byte offset of
 * the log (the cursor): the first page reads the last few lines of the file
 * whatever its size, and each next page continues where the last stopped.
 * A filter that matches little could make one page scan the whole log, so a
 * page stops after a byte budget and hands back a cursor to continue.
 * @module
 */
import { endpointMatcher, idTime, lineId } from "../../store/read/line_key.ts";
import { scanBackward } from "../../store/read/lines.ts";
import type { StoreReader } from "../../store/read/reader.ts";
import { type InspectorFilter, matchesInspectorFilter } from "./_filter.ts";
import type { DeliveryIndex } from "./deliveries.ts";
import { type EventSummary, summarize } from "./summary.ts";

/** Options of {@linkcode listPage}. */
export interface ListOptions {
  filter: InspectorFilter;
  /** Read lines that end before this byte offset. @default the log's size when it was opened */
  before?: number;
  /** Events per page. @default 100 */
  limit?: number;
  /** Bytes read at most before the page is returned as it is. @default 32 MiB */
  budget?: number;
}

/** A page of the list. */
export interface ListPage {
  events: EventSummary[];
  /** Cursor of the next (older) page; `null` when the start of the log was reached. */
  next: number | null;
  /** Bytes of the log read for this page. */
  scanned: number;
  /** The log's size when this page was read (the first page's cursor). */
  size: number;
}

/** Reads one page of the list. */
export async function listPage(
  reader: StoreReader,
  deliveries: DeliveryIndex,
  options: ListOptions,
): Promise<ListPage> {
  const { filter } = options;
  const limit = Math.max(1, Math.min(options.limit ?? 100, 1000));
  const budget = options.budget ?? 32 * 1024 * 1024;
  const end = Math.min(options.before ?? reader.size, reader.size);
  const events: EventSummary[] = [];
  let next: number | null = null;
  let lowest = end;
  // Cheap byte test first: on a busy store most lines belong to other endpoints.
  const sameEndpoint = filter.endpoint === undefined ? undefined : endpointMatcher(filter.endpoint);
  // Only each line's head (id, endpoint) is read until a line is to be shown; background reads keep the
  // inspector's server responsive.
  for await (const line of scanBackward(reader.file, end, { background: true })) {
    lowest = line.start;
    const id = lineId(line.head);
    if (id === undefined || line.torn) continue;
    // Ids are time-ordered: nothing older can be received after `since`.
    if (filter.since !== undefined && idTime(id) < filter.since - 1000) {
      lowest = 0;
      break;
    }
    const event = sameEndpoint === undefined || sameEndpoint(line.head)
      ? await reader.parse(line)
      : undefined;
    if (event !== undefined && matchesInspectorFilter(event, filter, deliveries.statusOf(event))) {
      events.push(summarize(event, deliveries.statusOf(event)));
      if (events.length >= limit) break;
    }
    if (end - line.start >= budget) break;
  }
  if (lowest > 0) next = lowest;
  return { events, next, scanned: end - lowest, size: reader.size };
}
