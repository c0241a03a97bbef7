/**
 * The `inspect` section of an event's deliveries: every attempt with the
 * app's answer (status, headers, pretty body), and the `logs` cell (last
 * status and attempts). Payload text is sanitized. Pure.
 * @module
 */
import type { DeliveryRecord } from "../event/delivery.ts";
import type { DeliverySummary } from "../send/deliveries_read.ts";
import type { Colors } from "./colors.ts";
import { formatBytes, formatLocalTime } from "./format.ts";
import { prettyJson } from "./json_pretty.ts";
import { safeBlock, safeLine } from "./sanitize.ts";

/**
 * The `logs` cell: `→ 200`, `→ 500 (3 tries)`, `→ err (2 tries)`, `→ 500 (2 tries) …` (retrying), `-` for
 * none. The count says attempts, not repeats of the status (`×3` read as "200 three times").
 */
export function deliveryCell(summary: DeliverySummary | undefined, marked: boolean): string {
  if (summary === undefined) return marked ? "→ pending" : "-";
  const last = summary.last;
  const status = last.status === undefined ? "err" : String(last.status);
  const times = summary.attempts > 1 ? ` (${summary.attempts} tries)` : "";
  return `→ ${status}${times}${last.outcome === "retrying" ? " …" : ""}`;
}

function body(record: DeliveryRecord, colors: Colors): string[] {
  if (record.body === undefined || record.body === "") return [colors.dim("    (empty body)")];
  if (record.bodyEncoding === "base64") {
    return [colors.dim(`    (binary, ${formatBytes(record.bodySize ?? 0)})`)];
  }
  let text = record.body;
  try {
    JSON.parse(text);
    text = prettyJson(text, colors, safeLine);
  } catch {
    text = safeBlock(text);
  }
  const lines = text.split("\n").map((l) => `    ${l}`);
  if (record.truncated) lines.push(colors.dim(`    … (cut: ${formatBytes(record.bodySize ?? 0)} in all)`));
  return lines;
}

/** The "Deliveries" section of `inspect`, or `""` when there are none. */
export function renderDeliveries(records: readonly DeliveryRecord[], colors: Colors): string {
  if (records.length === 0) return "";
  // A blank line first: the event's view ends right under its body.
  const out = ["", colors.bold(`Deliveries (${records.length})`)];
  for (const r of records) {
    const status = r.status === undefined
      ? colors.red("no answer")
      : `${r.status} ${safeLine(r.statusText ?? "")}`.trim();
    const paint = r.outcome === "delivered"
      ? colors.green
      : r.outcome === "retrying"
      ? colors.yellow
      : colors.red;
    out.push(
      `  #${r.attempt} ${paint(status)}  ${safeLine(r.method)} ${safeLine(r.url)}  ` +
        colors.dim(
          `${r.source}, ${formatLocalTime(new Date(r.startedAt))}, ${r.durationMs} ms, ${r.outcome}`,
        ) +
        (r.resigned ? colors.dim(", re-signed") : ""),
    );
    if (r.error !== undefined) out.push(`    ${colors.red(safeLine(r.error))}`);
    for (const [name, value] of r.headers ?? []) {
      out.push(`    ${colors.dim(`${safeLine(name)}:`)} ${safeLine(value)}`);
    }
    if (r.status !== undefined) out.push(...body(r, colors));
  }
  return out.join("\n") + "\n\n";
}
