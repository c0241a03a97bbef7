/**
 * One line per event for `hooktap logs`: local time, id, endpoint, method,
 * path with query, content type, body size. Payload-derived text is escaped. Pure.
 * @module
 */
import { type CapturedEvent, headerValue } from "../event/record.ts";
import type { Colors } from "./colors.ts";
import { formatBytes, formatLocalTime } from "./format.ts";
import { safeLine } from "./sanitize.ts";

/** Column widths that depend on the data. */
export interface RowWidths {
  endpoint: number;
}

/** Widths that fit `events` (and at least the given endpoint names). */
export function rowWidths(events: readonly CapturedEvent[], names: readonly string[] = []): RowWidths {
  const lengths = [...events.map((e) => safeLine(e.endpoint).length), ...names.map((n) => n.length), 8];
  return { endpoint: Math.min(24, Math.max(...lengths)) };
}

function _clip(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, max - 1) + "…";
}

/** The `logs` line of `event`, with its newline. */
export function eventRow(event: CapturedEvent, colors: Colors, widths: RowWidths): string {
  const target = event.query === "" ? event.path : `${event.path}?${event.query}`;
  const type = (headerValue(event.headers, "content-type") ?? "-").split(";")[0]!.trim() || "-";
  return [
    colors.dim(formatLocalTime(new Date(event.receivedAt))),
    colors.cyan(event.id),
    _clip(safeLine(event.endpoint), widths.endpoint).padEnd(widths.endpoint),
    safeLine(event.method).padEnd(6),
    _clip(safeLine(target), 48).padEnd(24),
    _clip(safeLine(type), 24).padEnd(24),
    formatBytes(event.bodySize).padStart(8),
  ].join("  ") + "\n";
}
