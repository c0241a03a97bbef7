/**
 * An event's delivery summary folded record by record, in the log's order: what
 * {@linkcode eventDelivery} (src/send/delivery_state.ts, the one delivery model) computes from all of
 * an event's records, kept in a few facts per target whatever their number (the first delivered
 * attempt, the latest attempt, the latest that was not a wait for the app, and a count). The inspector
 * keeps one per event it shows and folds in what the log appends; the tests hold it equal to
 * `eventDelivery` over the same records. Pure.
 * @module
 */
import type { CapturedEvent } from "../event/record.ts";
import { markedTargets } from "../event/record.ts";
import {
  combined,
  type DeliveryFact,
  type EventDelivery,
  isAttempt,
  isForwardRecord,
  isIdleReplay,
  type TargetOutcome,
} from "../send/delivery_state.ts";

/** What the fold needs of an event: its id and arrival (to read its records) and its forward mark. */
export type DeliverySubject = Pick<CapturedEvent, "id" | "receivedAt" | "forward" | "query" | "params">;

/** The facts of one (event, target) that its outcome is computed from (exported for the tests). */
export interface Bucket {
  name: string;
  /** Its latest record. */
  last?: DeliveryFact;
  /** Its first delivered record. */
  delivered?: DeliveryFact;
  /** Its latest record that was an attempt (not a try nothing listened to). */
  lastAttempt?: DeliveryFact;
  /** Attempts (records that were not tries nothing listened to). */
  attempts: number;
  /** Of those, the ones sent by hand (`source: "replay"`). */
  replays?: number;
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

function _add(bucket: Bucket, fact: DeliveryFact): void {
  bucket.last = fact;
  if (fact.outcome === "delivered") bucket.delivered ??= fact;
  if (isAttempt(fact)) {
    bucket.attempts++;
    if (fact.source === "replay") bucket.replays = (bucket.replays ?? 0) + 1;
    bucket.lastAttempt = fact;
  }
}

/** Folds the event's next record (in the log's order) into `fold`. */
export function foldFact(fold: DeliveryFold, fact: DeliveryFact): void {
  // A record belongs to the first forward target it is a delivery to (as eventDelivery takes them).
  const target = fold.targets.find((t) => isForwardRecord(fold.subject, t.name, fact));
  if (target !== undefined) {
    if (isIdleReplay(fact)) return; // a replay nothing listened to changes nothing (as eventDelivery drops it)
    _add(target, fact);
    fold.last = fact;
    return;
  }
  let other = fold.others.get(fact.target);
  if (other === undefined) fold.others.set(fact.target, other = { name: fact.target, attempts: 0 });
  _add(other, fact);
}

/** Where the target of `bucket` stands (`outcomeOf` of the model, over the folded facts). */
function _outcome(b: Bucket): TargetOutcome {
  const last = b.last;
  if (last === undefined) return { name: b.name, outcome: "pending", attempts: 0 };
  const waiting = b.delivered === undefined && !isAttempt(last) && last.outcome !== "failed";
  const shown = b.delivered ?? (waiting ? b.lastAttempt : last);
  return {
    name: b.name,
    outcome: b.delivered ? "delivered" : waiting ? (b.attempts > 0 ? "retrying" : "pending") : last.outcome,
    ...(shown?.status !== undefined ? { status: shown.status } : {}),
    attempts: b.attempts,
    ...(b.replays !== undefined ? { replays: b.replays } : {}),
    ...(waiting ? { waiting: true as const } : {}),
  };
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
