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
import type { DeliveryIndex } from "../delivery_index.ts";
import { type DeliverySubject, subjectOf } from "../delivery_fold.ts";
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

/** Candidates whose delivery states a `delivery=` page reads at once, first (then 4× more, up to the cap). */
const FIRST_BATCH = 256;
/**
 * At most this many candidates are held at once, whatever the page's budget: the page's memory bound. Their
 * summaries are kept (the index's capacity holds a batch), so the next page finds the states of the
 * candidates after its cursor without reading again.
 */
const MAX_BATCH = 8192;

/** An event of the page, its row made before its delivery state is known. */
interface Row {
  summary: EventSummary;
  subject: DeliverySubject;
  /** Where its line starts (the cursor after it). */
  start: number;
}

/**
 * Reads one page of the list; `deliveries` is refreshed by the caller. The rows' delivery states are read
 * for the page's events only ({@linkcode DeliveryIndex.deliveriesOf}, kept for the next pages and the live
 * rows). A `delivery=` filter is tested on candidates in batches (each event's state read from the whole
 * log, as for a row): the other filters pick the candidates, and a batch's states are read at once.
 */
export async function listPage(
  reader: StoreReader,
  deliveries: DeliveryIndex,
  options: ListOptions,
): Promise<ListPage> {
  const limit = Math.max(1, Math.min(options.limit ?? 100, 1000));
  const end = Math.min(options.before ?? reader.size, reader.size);
  const { delivery: want, ...rest } = options.filter;
  const filter = compileFilter(rest);
  const events: EventSummary[] = [];
  // Background reads keep the inspector's server responsive.
  const scan = scanBackward(reader, filter, {
    end,
    budget: options.budget ?? 32 * 1024 * 1024,
    background: true,
  });
  let batch: Row[] = [];
  let batchSize = want === undefined ? limit : FIRST_BATCH;
  let lowest: number | undefined;
  /** Takes the batch's rows whose state is wanted; `true` once the page is full (`lowest` set). */
  const settle = async (): Promise<boolean> => {
    const states = await deliveries.deliveriesOf(batch.map((r) => r.subject), { keep: true });
    for (const row of batch) {
      const state = states.get(row.subject.id)!.state;
      if (want !== undefined && state !== want) continue;
      row.summary.delivery = state;
      events.push(row.summary);
      if (events.length >= limit) {
        lowest = row.start;
        return true;
      }
    }
    batch = [];
    batchSize = Math.min(batchSize * 4, MAX_BATCH);
    return false;
  };
  while (true) {
    const step = await scan.next();
    if (step.done) {
      if (batch.length > 0 && await settle()) break;
      lowest = step.value;
      break;
    }
    const { event, start } = step.value;
    batch.push({ summary: summarize(event, "none"), subject: subjectOf(event), start });
    if (batch.length >= batchSize && await settle()) {
      await scan.return(0);
      break;
    }
  }
  return { events, next: lowest! > 0 ? lowest! : null, scanned: end - lowest!, size: reader.size };
}
