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
import { readFacts } from "./resume_scan.ts";
import { readForwardState } from "./state.ts";
import { eventDelivery } from "./delivery_state.ts";
import { stillWaiting } from "./held_by_dev.ts";

/** Events given up on, grouped by endpoint and target (for the report at start). */
export interface GivenUp {
  endpoint: string;
  /** The target's name. */
  target: string;
  /** Event ids, oldest first. */
  events: string[];
  /**
   * Of `events`, those stored with an invalid signature: `replay --resign` refuses them (sent as received,
   * an app that verifies signatures refuses them again). Set by `dev`'s start scan; absent: none.
   */
  invalid?: string[];
  /** Of `invalid`, how many `hooktap trigger` made invalid on purpose (`--bad-signature`). */
  faults?: number;
  /** The verdict every event not in `invalid` has, when they share one (`--verdict` picks them out). */
  othersVerdict?: string;
  /**
   * Of the events not in `invalid`, how many arrived expired, unsigned or unchecked: a signature hooktap does
   * not renew (src/send/resign_stale.ts), so the group's command sends them as received, without `--resign`.
   * Set by `dev`'s start scan; absent: none.
   */
  unrenewed?: number;
}

/** What {@linkcode findUndelivered} found, oldest first. */
export interface Undelivered {
  /**
   * Every (event, target) whose attempts all failed and that no later send
   * to that target delivered, in the whole deliveries log (not only after the
   * watermark: a given-up event settles and the mark passes it).
   */
  givenUp: GivenUp[];
  /** No attempt settled: interrupted or never started. */
  pending: CapturedEvent[];
  /** Every attempt failed (retries exhausted, or a relay without an answer). */
  failed: CapturedEvent[];
  /** Attempts already recorded per `eventId targetName`. */
  attempts: Map<string, number>;
  /** Per event of `pending`: the names of its targets with no settled attempt. */
  due: Map<string, string[]>;
  /** Per event of `failed`: the names of its targets whose attempts all failed. */
  failedTargets: Map<string, string[]>;
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

/**
 * Finds forwarded events that have no successful delivery. Memory holds what the delivery-state model
 * reads of each attempt (./deliveries_read.ts `factOf`) and the events found, not every stored event.
 */
export async function findUndelivered(
  paths: StorePaths,
  options: FindUndeliveredOptions = {},
): Promise<Undelivered> {
  const mark = options.afterWatermark
    ? (await readForwardState(paths.forwardState))?.settledThrough
    : undefined;
  // Every attempt's facts (of the events after the mark) and the given-up pairs of the whole log.
  const { facts, givenUp } = readFacts(paths.deliveries, mark);
  const result: Undelivered = {
    pending: [],
    failed: [],
    attempts: new Map(),
    due: new Map(),
    failedTargets: new Map(),
    givenUp,
  };
  const reader = await openStoreReader(paths);
  if (reader === null) return result;
  using r = reader;
  for await (const line of scanBackward(r.file, r.size)) {
    if (mark !== undefined) {
      const id = lineId(line.head); // the id is near the line's start: no need to read it whole
      if (id !== undefined && id <= mark) break;
    }
    const event = await r.parse(line);
    if (event === undefined) continue;
    if (mark !== undefined && event.id <= mark) break;
    if (event.forward === undefined && !options.unmarked) continue;
    const records = facts.get(event.id) ?? [];
    const due: string[] = [];
    const failed: string[] = [];
    if (event.forward === undefined) {
      // Unmarked (stored while forwarding was off): no forward target; any send that delivered it counts.
      result.attempts.set(`${event.id} `, records.length);
      if (records.some((d) => d.outcome === "delivered")) continue;
      (records.some((d) => d.outcome === "failed") ? failed : due).push("");
    } else {
      // The one model (./delivery_state.ts): a send to another URL never counts for a forward target.
      for (const t of eventDelivery(event, records).targets) {
        result.attempts.set(`${event.id} ${t.name}`, t.attempts);
        // Due: the one rule of what still waits for `dev` (./held_by_dev.ts); else given up, or delivered.
        if (stillWaiting(t)) due.push(t.name);
        else if (t.outcome === "failed") failed.push(t.name);
      }
    }
    if (due.length > 0) {
      result.pending.push(event);
      result.due.set(event.id, due);
    } else if (failed.length > 0) {
      result.failed.push(event);
      result.failedTargets.set(event.id, failed);
    }
  }
  // Read last first: oldest first, as documented.
  result.pending.reverse();
  result.failed.reverse();
  return result;
}
