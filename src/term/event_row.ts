/**
 * The `hooktap logs` table: one row per event (local time, id, endpoint,
 * method, path with query, content type, body size), fitted to the
 * terminal's width: nothing wraps, the content type and the time go first
 * when space is short, the id never. Payload-derived text is escaped. Pure.
 * @module
 */
import { type CapturedEvent, headerValue } from "../event/record.ts";
import type { Colors } from "./colors.ts";
import { formatBytes, formatLocalTime } from "../text/format.ts";
import { safeLine } from "../text/sanitize.ts";
import { type Column, layoutRows } from "./table.ts";
import { paintVerdict, senderText, VERDICT_MARKS, verdictWord } from "./verdict.ts";

/** The plain cells of `event`'s row. */
export function eventCells(event: CapturedEvent): string[] {
  const target = event.query === "" ? event.path : `${event.path}?${event.query}`;
  const type = (headerValue(event.headers, "content-type") ?? "-").split(";")[0]!.trim() || "-";
  return [
    formatLocalTime(new Date(event.receivedAt)),
    event.id,
    safeLine(event.endpoint),
    safeLine(event.method),
    safeLine(target),
    safeLine(type),
    formatBytes(event.bodySize),
    senderText(event.provider, event.type) +
    (event.trigger === undefined
      ? ""
      : safeLine(` [trigger${event.trigger.fault ? `: ${event.trigger.fault}` : ""}]`)),
    event.verdict === undefined && event.provider === undefined
      ? ""
      : `${VERDICT_MARKS[event.verdict?.status ?? "unsigned"]} ${
        verdictWord(event.verdict?.status ?? "unsigned")
      }`,
  ];
}

function _columns(colors: Colors): Column[] {
  return [
    { priority: 2, paint: colors.dim }, // time
    { priority: 9, paint: colors.cyan }, // id
    { priority: 6, min: 12 }, // endpoint
    { priority: 5 }, // method
    { priority: 7, min: 24 }, // path
    { priority: 1, min: 16 }, // content type
    { priority: 3, align: "right" }, // size
    { priority: 4, min: 10 }, // provider and type
    { priority: 4.5, paint: paintVerdict(colors) }, // verdict
  ];
}

/**
 * The lines (without newlines) of `events`, fitted to `width` columns
 * (undefined: a pipe, every column whole). Column widths are computed over
 * `events` and `sample` (earlier rows, so that rows printed later by
 * `--follow` line up with them).
 */
export function eventLines(
  events: readonly CapturedEvent[],
  colors: Colors,
  width: number | undefined,
  sample: readonly CapturedEvent[] = [],
  delivery?: (event: CapturedEvent) => string,
): string[] {
  let rows = [...sample, ...events].map(eventCells);
  let columns = _columns(colors);
  // No sender known and nothing verified in these rows: no sender columns (no trailing blanks).
  if (rows.every((r) => r[7] === "" && r[8] === "")) {
    rows = rows.map((r) => r.slice(0, 7));
    columns = columns.slice(0, 7);
  }
  if (delivery) {
    // Forwarding: last status and attempts.
    const all = [...sample, ...events];
    rows = rows.map((r, i) => [...r, delivery(all[i]!)]);
    columns = [...columns, { priority: 4 }];
  }
  return layoutRows(columns, rows, width).slice(sample.length);
}
