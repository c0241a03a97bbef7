/**
 * Reading `.hooktap/deliveries.jsonl` back: every record, by event, and the
 * latest state of each event. Lines that are not v1 records are skipped.
 * @module
 */
import { type DeliveryRecord, targetNameOf } from "../event/delivery.ts";

/**
 * Parses one line of `.hooktap/deliveries.jsonl`, or `undefined` when it is not a delivery record.
 * A v1 line (whose `target` was the URL) is read as v2: `url` is that URL and
 * `target` the name derived from it.
 *
 * @example
 * ```ts
 * import { parseDeliveryLine } from "@hooktap/hooktap";
 * for (const line of (await Deno.readTextFile(".hooktap/deliveries.jsonl")).split("\n")) {
 *   const d = parseDeliveryLine(line);
 *   if (d) console.log(d.event, d.attempt, d.status ?? d.error);
 * }
 * ```
 */
export function parseDeliveryLine(line: string): DeliveryRecord | undefined {
  if (line === "") return undefined;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  const d = value as Omit<Partial<DeliveryRecord>, "v"> & { v?: unknown } | null;
  if (
    typeof d !== "object" || d === null || (d.v !== 1 && d.v !== 2) || typeof d.event !== "string" ||
    typeof d.attempt !== "number" || typeof d.target !== "string"
  ) return undefined;
  if (d.v === 1) return { ...d, v: 2, url: d.target, target: targetNameOf(d.target) } as DeliveryRecord;
  if (typeof d.url !== "string") return undefined;
  return d as DeliveryRecord;
}

/** Every record of the deliveries log at `path`, in file order; `[]` when there is none. */
export async function readDeliveries(path: string): Promise<DeliveryRecord[]> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
  const out: DeliveryRecord[] = [];
  for (const line of text.split("\n")) {
    const record = parseDeliveryLine(line);
    if (record !== undefined) out.push(record);
  }
  return out;
}

/** The records grouped by event id, each group in file order. */
export function deliveriesByEvent(records: readonly DeliveryRecord[]): Map<string, DeliveryRecord[]> {
  const map = new Map<string, DeliveryRecord[]>();
  for (const r of records) {
    const list = map.get(r.event);
    if (list === undefined) map.set(r.event, [r]);
    else list.push(r);
  }
  return map;
}

/** One event's delivery summary: its last attempt and how many there were. */
export interface DeliverySummary {
  last: DeliveryRecord;
  attempts: number;
  /** Some attempt (of any source) ended delivered. */
  delivered: boolean;
}

/** Summary of a list of attempts of one event, or `undefined` for none. */
export function summarize(records: readonly DeliveryRecord[] | undefined): DeliverySummary | undefined {
  if (records === undefined || records.length === 0) return undefined;
  return {
    last: records[records.length - 1]!,
    attempts: records.length,
    delivered: records.some((r) => r.outcome === "delivered"),
  };
}
