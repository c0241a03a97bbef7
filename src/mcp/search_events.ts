/**
 * `search_events`: the stored events the `logs` filters match, newest
 * first, a compact summary each, paged with an opaque cursor (the byte
 * offset where the next page's backward scan starts).
 * @module
 */
import { z } from "zod";
import type { CapturedEvent } from "../event/record.ts";
import { UsageError } from "../errors.ts";
import { compileFilter } from "../query/filter.ts";
import { scanBackward } from "../store/read/scan.ts";
import { classifySkipped, type SkippedLines, skippedWarnings } from "../store/read/skipped.ts";
import { readDeliveryRecords } from "./deliveries.ts";
import { type McpContext, openStore, storeOf } from "./context.ts";
import { EVENT_SUMMARY_SCHEMA, eventLine, type EventSummary, summaryOf } from "./event_view.ts";
import { FILTER_SHAPE, filterOf } from "./filters.ts";
import { answer } from "./result.ts";
import { defineTool } from "./tool.ts";
import { undeliveredIds } from "./undelivered.ts";
import { refuseUnservedEndpoint } from "./wait_for_event.ts";

/** Reads a cursor. @throws {UsageError} when it is not one this tool gave. */
export function parseCursor(cursor: string, size: number): number {
  const m = /^c(\d+)$/.exec(cursor);
  const at = m === null ? NaN : Number(m[1]);
  if (!(at >= 0) || at > size) {
    throw new UsageError(
      `cursor "${cursor}" is not one search_events gave for this log (it may have been pruned since): ` +
        "search again without a cursor.",
    );
  }
  return at;
}

/** The tool. */
export function searchEvents(ctx: McpContext) {
  return defineTool({
    name: "search_events",
    title: "Search stored webhook events",
    description:
      "List the webhook events hooktap stored in this project (.hooktap/events.jsonl), newest first, with " +
      "the `hooktap logs` filters. Each has a compact summary: id, time, endpoint, method, path, provider, " +
      "type, signature verdict, body size and delivery state per target (forward, or other: a replay elsewhere). Pass nextCursor as cursor " +
      "for the next (older) page. Use get_event for the headers and body.",
    input: {
      ...FILTER_SHAPE,
      limit: z.number().int().min(1).max(200).optional().describe("events per page (default 20)"),
      cursor: z.string().optional().describe("nextCursor of the previous page"),
    },
    output: {
      events: z.array(EVENT_SUMMARY_SCHEMA).describe("newest first"),
      nextCursor: z.string().optional().describe("present when older events match: pass it as cursor"),
      skippedLines: z.number().int().optional().describe(
        "lines of .hooktap/events.jsonl this page's scan passed that it cannot list: damaged (torn by a crash, " +
          "or edited by hand) or written by a newer hooktap (the text's warning says which); a last line the " +
          "running dev is still writing is not counted",
      ),
    },
    readOnly: true,
    async run(args) {
      const filter = filterOf(args);
      const limit = args.limit ?? 20;
      const paths = storeOf(ctx);
      const only = args.undelivered ? await undeliveredIds(paths) : undefined;
      const reader = await openStore(ctx);
      let events: EventSummary[] = [];
      let nextCursor: string | undefined;
      let kinds: SkippedLines | undefined;
      if (reader !== null) {
        try {
          const end = args.cursor === undefined ? reader.size : parseCursor(args.cursor, reader.size);
          const found: CapturedEvent[] = [];
          let last = end;
          for await (const m of scanBackward(reader, compileFilter(filter), { end })) {
            if (only !== undefined && !only.has(m.event.id)) continue;
            if (found.length === limit) {
              nextCursor = `c${last}`; // the next page: the lines that end before this page's oldest
              break;
            }
            found.push(m.event);
            last = m.start;
          }
          // The deliveries of this page's events only (read back to the oldest of them).
          const records = await readDeliveryRecords(paths, found);
          events = found.map((e) => summaryOf(e, records.get(e.id)));
          kinds = classifySkipped(reader); // a line dev is still writing is no damage
        } finally {
          reader[Symbol.dispose]();
        }
      }
      // Nothing found for an endpoint the config does not have: a typo, refused as `logs --endpoint` does
      // (an endpoint removed from the config still lists the events it stored).
      if (events.length === 0 && args.cursor === undefined) {
        await refuseUnservedEndpoint(ctx, args.endpoint, "is stored or can arrive");
      }
      const skipped = kinds === undefined ? 0 : kinds.damaged + kinds.newer;
      const structured = {
        events,
        ...(nextCursor !== undefined ? { nextCursor } : {}),
        ...(skipped > 0 ? { skippedLines: skipped } : {}),
      };
      // As `hooktap logs` warns: a damaged line is an event no list shows, so the list says so.
      const warnings = kinds === undefined ? [] : skippedWarnings(kinds);
      const damaged = warnings.map((w) => `\nwarning: ${w}`).join("");
      const head = events.length === 0
        ? (reader === null || reader.size === 0
          ? "No events stored yet in this project (.hooktap/events.jsonl). Start `hooktap dev` and send one, " +
            "or use the trigger tool."
          : "No stored events match these filters.")
        : `${events.length} event${events.length === 1 ? "" : "s"}, newest first` +
          `${nextCursor !== undefined ? " (more: pass nextCursor as cursor)" : ""}:\n` +
          events.map(eventLine).join("\n");
      return answer(structured, head + damaged);
    },
  });
}
