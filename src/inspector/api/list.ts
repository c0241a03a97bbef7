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

/**
 * Candidates not kept whose delivery states a `delivery=` filter reads at once (and at most twice as many
 * held), whatever the page's budget: the page's memory bound. The first batch is read as a page's rows are
 * (a first page often ends within it); from the second on, one pass over the deliveries log goes on from
 * batch to batch and from page to page (./delivery_index.ts `along`), so a batch costs the lines of its time.
 */
const BATCH = 1024;
/** Candidates all kept (rows shown before) are settled this many at a time: no read to share. */
const KEPT_BATCH = 256;

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
  // A filter's candidates: read in one pass over the deliveries log, which the next page goes on with.
  const filterKey = JSON.stringify(options.filter);
  const along = want === undefined
    ? undefined
    : deliveries.along(options.before === undefined ? `${filterKey}@first` : `${filterKey}@${end}`);
  let missing = 0; // candidates of the batch not kept: each costs a read
  let lowest: number | undefined;
  /** Takes the batch's rows whose state is wanted; `true` once the page is full (`lowest` set). */
  const settle = async (): Promise<boolean> => {
    const subjects = batch.map((r) => r.subject);
    const states = await (along?.deliveriesOf(subjects, (d) => d.state === want) ??
      deliveries.deliveriesOf(subjects, { keep: true }));
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
    missing = 0;
    return false;
  };
  /** Whether the batch is to be settled now. */
  const due = () =>
    want === undefined
      ? batch.length >= limit - events.length
      : missing >= BATCH || (missing === 0 && batch.length >= KEPT_BATCH) || batch.length >= 2 * BATCH;
  while (true) {
    const step = await scan.next();
    if (step.done) {
      if (batch.length > 0 && await settle()) break;
      lowest = step.value;
      break;
    }
    const { event, start } = step.value;
    batch.push({ summary: summarize(event, "none"), subject: subjectOf(event), start });
    if (!deliveries.has(event.id)) missing++;
    if (due() && await settle()) {
      await scan.return(0);
      break;
    }
  }
  const next = lowest! > 0 ? lowest! : null;
  if (along !== undefined) along.key = next === null ? "" : `${filterKey}@${next}`;
  return { events, next, scanned: end - lowest!, size: reader.size };
}
