/**
 * A page of the list, newest first, read backwards from a byte offset of
 * the log (the cursor) with the store's filter and scan, the ones
 * `hooktap logs` uses: the first page reads the last few lines of the file
 * whatever its size, each next page continues where the last stopped, and
 * a line is parsed only when its text can match. A filter that matches
 * little could make one page scan the whole log, so a page stops after a
 * byte budget and hands back a cursor to continue.
 * @module
 */
import type { DeliveryIndex } from "../../send/deliveries_read.ts";
import { compileFilter, type EventFilter } from "../../query/filter.ts";
import type { StoreReader } from "../../store/read/reader.ts";
import { scanBackward } from "../../store/read/scan.ts";
import { type EventSummary, summarize } from "./summary.ts";

/** Options of {@linkcode listPage}. */
export interface ListOptions {
  filter: EventFilter;
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

/** Reads one page of the list; `deliveries` is refreshed by the caller. */
export async function listPage(
  reader: StoreReader,
  deliveries: DeliveryIndex,
  options: ListOptions,
): Promise<ListPage> {
  const limit = Math.max(1, Math.min(options.limit ?? 100, 1000));
  const end = Math.min(options.before ?? reader.size, reader.size);
  const filter = compileFilter(options.filter, { deliveryOf: deliveries.stateOf });
  const events: EventSummary[] = [];
  // Background reads keep the inspector's server responsive.
  const scan = scanBackward(reader, filter, {
    end,
    budget: options.budget ?? 32 * 1024 * 1024,
    background: true,
  });
  let lowest: number;
  while (true) {
    const step = await scan.next();
    if (step.done) {
      lowest = step.value;
      break;
    }
    events.push(summarize(step.value.event, deliveries.stateOf(step.value.event)));
    if (events.length >= limit) {
      lowest = step.value.start;
      await scan.return(0);
      break;
    }
  }
  return { events, next: lowest > 0 ? lowest : null, scanned: end - lowest, size: reader.size };
}
