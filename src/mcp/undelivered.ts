/**
 * The `undelivered` filter: the ids of the forwarded events never delivered
 * (pending, or every attempt failed), as `hooktap replay --undelivered`
 * finds them (the one delivery-state model, src/send/delivery_state.ts).
 * The store is read from its end in batches of forwarded events, and their
 * records in one backward pass over the deliveries log
 * (src/send/deliveries_read.ts `deliveriesAlong`): memory holds a batch,
 * the records held for the next ones and the ids found, never every attempt.
 * @module
 */
import { compileFilter } from "../query/filter.ts";
import { deliveriesAlong, factOf } from "../send/deliveries_read.ts";
import { type DeliveryFact, eventDelivery } from "../send/delivery_state.ts";
import type { CapturedEvent } from "../event/record.ts";
import { stillWaiting } from "../send/held_by_dev.ts";
import { openStoreReader } from "../store/read/reader.ts";
import { scanBackward } from "../store/read/scan.ts";
import type { StorePaths } from "../store/paths.ts";

/** Forwarded events whose records are read at once. */
const BATCH = 1024;

type Subject = Pick<CapturedEvent, "id" | "receivedAt" | "forward" | "query" | "params">;

/** The ids of the events `hooktap replay --undelivered` would send. */
export async function undeliveredIds(paths: StorePaths): Promise<Set<string>> {
  return new Set((await undeliveredTargets(paths)).keys());
}

/**
 * The events `hooktap replay --undelivered` would send, each with the target it sends it to: the first of
 * its forward targets still waiting for `dev` (src/send/held_by_dev.ts `stillWaiting`), else the first
 * that gave up, as `findUndelivered` lists them (src/send/undelivered.ts: `due`, then `failedTargets`).
 */
export async function undeliveredTargets(paths: StorePaths): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  const reader = await openStoreReader(paths);
  if (reader === null) return ids;
  using r = reader;
  const along = deliveriesAlong<DeliveryFact>(paths.deliveries, { as: factOf });
  let batch: Subject[] = [];
  const settle = async () => {
    const facts = await along.next(batch);
    for (const e of batch) {
      // Not delivered to one of its targets (pending, retrying or failed); no target: no rule took it.
      const { targets } = eventDelivery(e, facts.get(e.id));
      const missed = targets.find(stillWaiting) ?? targets.find((t) => t.outcome !== "delivered");
      if (missed !== undefined) ids.set(e.id, missed.name);
    }
    batch = [];
  };
  for await (const { event: e } of scanBackward(r, compileFilter({}), { background: true })) {
    if (e.forward === undefined) continue; // never marked: not forwarded
    const s: Subject = { id: e.id, receivedAt: e.receivedAt, forward: e.forward, query: e.query };
    if (e.params !== undefined) s.params = e.params;
    batch.push(s);
    if (batch.length >= BATCH) await settle();
  }
  if (batch.length > 0) await settle();
  return ids;
}
