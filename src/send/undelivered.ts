/**
 * Events stored with a forward mark that never got a final delivery: left
 * pending when `dev` stopped (Ctrl-C past the grace, crash, SIGKILL), or
 * given up after every retry. Reads the event log backwards down to the
 * watermark, and the deliveries log.
 * @module
 */
import type { CapturedEvent } from "../event/record.ts";
import type { StorePaths } from "../store/paths.ts";
import { lineId } from "../store/read/line_key.ts";
import { scanBackward } from "../store/read/lines.ts";
import { openStoreReader } from "../store/read/reader.ts";
import { deliveriesByEvent, readDeliveries } from "./deliveries_read.ts";
import { forwardPaths } from "./paths.ts";
import { readForwardState } from "./state.ts";

/** What {@linkcode findUndelivered} found, oldest first. */
export interface Undelivered {
  /** No attempt settled: interrupted or never started. */
  pending: CapturedEvent[];
  /** Every attempt failed (retries exhausted, or a relay without an answer). */
  failed: CapturedEvent[];
  /** Attempts already recorded per event id. */
  attempts: Map<string, number>;
}

/** Options of {@linkcode findUndelivered}. */
export interface FindUndeliveredOptions {
  /**
   * Look only after the watermark of `.hooktap/forward_state.json` (what `dev` does at start).
   * @default false: look at every event
   */
  afterWatermark?: boolean;
  /**
   * Count events never marked for forwarding too (stored while forwarding was off).
   * @default false
   */
  unmarked?: boolean;
}

/** Finds forwarded events that have no successful delivery. */
export async function findUndelivered(
  paths: StorePaths,
  options: FindUndeliveredOptions = {},
): Promise<Undelivered> {
  const files = forwardPaths(paths);
  const mark = options.afterWatermark ? (await readForwardState(files.state))?.settledThrough : undefined;
  const reader = await openStoreReader(paths);
  const events: CapturedEvent[] = [];
  if (reader !== null) {
    using r = reader;
    for await (const line of scanBackward(r.file, r.size)) {
      if (mark !== undefined) {
        const id = lineId(line.head); // the id is near the line's start: no need to read it whole
        if (id !== undefined && id <= mark) break;
      }
      const event = await r.parse(line);
      if (event === undefined) continue;
      if (mark !== undefined && event.id <= mark) break;
      if (event.forward !== undefined || options.unmarked) events.push(event);
    }
  }
  events.reverse();
  const byEvent = deliveriesByEvent(await readDeliveries(files.deliveries));
  const result: Undelivered = { pending: [], failed: [], attempts: new Map() };
  for (const event of events) {
    const records = byEvent.get(event.id) ?? [];
    result.attempts.set(event.id, records.length);
    if (records.some((d) => d.outcome === "delivered")) continue;
    if (records.some((d) => d.outcome === "failed")) result.failed.push(event);
    else result.pending.push(event);
  }
  return result;
}
