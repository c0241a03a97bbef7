/**
 * Reading `.hooktap/deliveries.jsonl` back: every record, by event, and the
 * latest state of each event, whole (commands) or kept up to date as the log
 * grows (the inspector's {@linkcode deliveryIndex}). Lines that are not v1 or
 * v2 records are skipped.
 * @module
 */
import { type DeliveryRecord, targetNameOf } from "../event/delivery.ts";
import type { CapturedEvent } from "../event/record.ts";
import type { DeliveryState } from "../query/filter.ts";
import { type DeliveryFact, type EventDelivery, eventDelivery } from "./delivery_state.ts";
import { type Line, readLine, scanForward } from "../store/read/lines.ts";
import type { StorePaths } from "../store/paths.ts";

/**
 * Parses one line of `.hooktap/deliveries.jsonl`, or `undefined` when it is not a delivery record.
 * A v1 line (whose `target` was the URL) is read as v2: `url` is that URL and
 * `target` the name derived from it.
 *
 * @example
 * ```ts
 * import { parseDeliveryLine } from "@hooktap/hooktap/testing";
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

/** The latest delivery outcome of each event, for a reader that stays open (the inspector). */
export interface DeliveryIndex {
  /** Reads what was appended since the last call (calls at once share one read). */
  refresh(): Promise<void>;
  /** The event's delivery state, as of the last `refresh` (./delivery_state.ts). */
  stateOf(event: CapturedEvent): DeliveryState;
  /** The event's whole delivery summary, as of the last `refresh`. */
  deliveryOf(event: CapturedEvent): EventDelivery;
  /** Every attempt for one event, in order. */
  attemptsOf(id: string): Promise<DeliveryRecord[]>;
}

/** Delivery records are small (a response body is capped at 64 KiB): read whole in the scan. */
const WHOLE = { headBytes: 256 * 1024, background: true };
const decoder = new TextDecoder();

async function _text(file: Deno.FsFile, line: Line): Promise<string> {
  return decoder.decode(line.head.length === line.length ? line.head : await readLine(file, line));
}

async function _size(path: string): Promise<number> {
  try {
    return (await Deno.stat(path)).size;
  } catch {
    return 0;
  }
}

/**
 * The delivery index of a store (nothing is read until `refresh`): each
 * refresh reads only the bytes appended since the last, and starts over
 * when the log shrank (pruned). Works, knowing nothing, while there is no log.
 */
export function deliveryIndex(paths: Pick<StorePaths, "deliveries">): DeliveryIndex {
  const path = paths.deliveries;
  const facts = new Map<string, DeliveryFact[]>();
  let pos = 0;
  let busy: Promise<void> | undefined;
  const read = async () => {
    const size = await _size(path);
    if (size < pos) {
      facts.clear();
      pos = 0;
    }
    if (size === pos) return;
    using file = await Deno.open(path, { read: true });
    for await (const line of scanForward(file, pos, size, WHOLE)) {
      if (line.torn) break;
      pos = line.start + line.length + 1;
      const d = parseDeliveryLine(await _text(file, line));
      if (d === undefined) continue;
      const fact: DeliveryFact = { target: d.target, url: d.url, source: d.source, outcome: d.outcome };
      if (d.status !== undefined) fact.status = d.status;
      if (d.refused === true) fact.refused = true;
      const list = facts.get(d.event);
      if (list === undefined) facts.set(d.event, [fact]);
      else list.push(fact);
    }
  };
  return {
    refresh() {
      busy ??= read().catch(() => {}).finally(() => (busy = undefined));
      return busy;
    },
    stateOf(event) {
      return eventDelivery(event, facts.get(event.id)).state;
    },
    deliveryOf(event) {
      return eventDelivery(event, facts.get(event.id));
    },
    async attemptsOf(id) {
      const size = await _size(path);
      if (size === 0) return [];
      const needle = `"event":${JSON.stringify(id)}`;
      const found: DeliveryRecord[] = [];
      using file = await Deno.open(path, { read: true });
      for await (const line of scanForward(file, 0, size, WHOLE)) {
        if (line.torn) break;
        const text = await _text(file, line);
        if (!text.includes(needle)) continue;
        const d = parseDeliveryLine(text);
        if (d?.event === id) found.push(d);
      }
      return found;
    },
  };
}
