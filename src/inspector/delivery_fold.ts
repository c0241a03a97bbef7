/**
 * An event's delivery summary folded record by record, in the log's order: what
 * {@linkcode eventDelivery} (src/send/delivery_state.ts, the one delivery model) computes from all of
 * an event's records, kept in a few facts per target whatever their number (the model's
 * `TargetFacts`, added and read by the model's own rule). The inspector keeps one per event it shows and folds in what the log appends; the tests hold it equal to
 * `eventDelivery` over the same records. Pure.
 * @module
 */
import type { CapturedEvent } from "../event/record.ts";
import { markedTargets } from "../event/record.ts";
import {
  addFact,
  combined,
  type DeliveryFact,
  type EventDelivery,
  isForwardRecord,
  isIdleReplay,
  outcomeFrom,
  type TargetFacts,
  type TargetOutcome,
} from "../send/delivery_state.ts";

/** What the fold needs of an event: its id and arrival (to read its records) and its forward mark. */
export type DeliverySubject = Pick<CapturedEvent, "id" | "receivedAt" | "forward" | "query" | "params">;

/** The facts of one (event, target) that its outcome is computed from (exported for the tests). */
export interface Bucket extends TargetFacts {
  name: string;
}

/** An event's records folded (see the module's description). */
export interface DeliveryFold {
  readonly subject: DeliverySubject;
  /** One per forward target, in the mark's order. */
  readonly targets: Bucket[];
  /** Sends to other targets, by name, in the order first seen. */
  readonly others: Map<string, Bucket>;
  /** The latest record to any forward target. */
  last?: DeliveryFact;
}

/** The subject of `event`: only what the fold reads (never its body). */
export function subjectOf(event: DeliverySubject): DeliverySubject {
  const s: DeliverySubject = { id: event.id, receivedAt: event.receivedAt, query: event.query };
  if (event.forward !== undefined) s.forward = event.forward;
  if (event.params !== undefined) s.params = event.params;
  return s;
}

/** A fold of no records yet. */
export function newFold(subject: DeliverySubject): DeliveryFold {
  const names = subject.forward === undefined ? [] : markedTargets(subject.forward);
  return { subject, targets: names.map((name) => ({ name, attempts: 0 })), others: new Map() };
}

/** Folds the event's next record (in the log's order) into `fold`. */
export function foldFact(fold: DeliveryFold, fact: DeliveryFact): void {
  // A record belongs to the first forward target it is a delivery to (as eventDelivery takes them).
  const target = fold.targets.find((t) => isForwardRecord(fold.subject, t.name, fact));
  if (target !== undefined) {
    if (isIdleReplay(fact)) return; // a replay nothing listened to changes nothing (as eventDelivery drops it)
    addFact(target, fact);
    fold.last = fact;
    return;
  }
  let other = fold.others.get(fact.target);
  if (other === undefined) fold.others.set(fact.target, other = { name: fact.target, attempts: 0 });
  addFact(other, fact);
}

/** Where the target of `bucket` stands (the model's own rule, over the folded facts). */
function _outcome(b: Bucket): TargetOutcome {
  return outcomeFrom(b.name, b);
}

/** The event's summary from its fold: equal to `eventDelivery` over the records folded. */
export function foldedDelivery(fold: DeliveryFold): EventDelivery {
  const targets = fold.targets.map(_outcome);
  return {
    state: combined(targets),
    status: targets.length === 1 ? targets[0]!.status ?? null : fold.last?.status ?? null,
    attempts: targets.reduce((n, t) => n + t.attempts, 0),
    targets,
    others: [...fold.others.values()].map(_outcome),
  };
}
