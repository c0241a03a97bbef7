/**
 * The one delivery-state model: where an event stands with each of its
 * forward targets, and the event's summary, computed from the records of
 * `.hooktap/deliveries.jsonl`. Every reader (`logs`, `inspect`, the
 * inspector, `replay --undelivered`, `dev`'s resume and summaries) asks
 * here, so they cannot disagree. Pure.
 *
 * The unit is one (event, target). A record belongs to a forward target of
 * the event when it names that target; for an event with one plain target
 * (a mark without `targets`), every forward or relay record does, and a
 * `replay` record does when it went to that target's name or URL. A send to
 * any other URL (`replay ID --to URL`) is a delivery of its own target: it is
 * listed under `others` and never changes the forward targets' state.
 *
 * A try nothing listened to (`refused`) is no attempt: `dev`'s own is a wait for the app (the event stays
 * `pending`, or `retrying` after a real attempt); a replay's to a forward target changes nothing at all (the
 * event stays as it stood, the next `dev` sends it), nor is it counted as a replay.
 * @module
 */
import type { DeliveryRecord } from "../event/delivery.ts";
import { type CapturedEvent, markedTargets } from "../event/record.ts";
import { deliveryUrl } from "../route/expand.ts";
import { type SenderGot, senderStatus } from "./answer_note.ts";

/** What the model needs of a record (the inspector keeps only this much per record). */
export type DeliveryFact = Pick<DeliveryRecord, "target" | "url" | "source" | "outcome"> & {
  status?: number | undefined;
  /** A relay's: the status its sender got from hooktap instead (see {@linkcode DeliveryRecord.senderStatus}). */
  senderStatus?: number | undefined;
  /** The answer's size (a relay's over 64 MiB, recorded before `senderStatus`, got its sender a 502). */
  bodySize?: number | undefined;
  /** A relay's: its sender hung up before the answer (see {@linkcode DeliveryRecord.senderLeft}). */
  senderLeft?: true | undefined;
  /** Nothing listened: a wait for the app, not an attempt (see {@linkcode DeliveryRecord.refused}). */
  refused?: true | undefined;
};

/** Where one (event, target) stands. */
export type TargetState = "pending" | "retrying" | "delivered" | "failed";

/** Where an event stands with one target. */
export interface TargetOutcome {
  /** The target's name. */
  name: string;
  /**
   * `delivered` when some attempt got a 2xx; else the outcome of dev's latest
   * attempt (`retrying`, `failed`: a failed send by hand neither ends dev's
   * retries nor gives up for it), or of the latest send by hand when dev made
   * none; `pending` when none is recorded yet, or dev's are only tries
   * nothing listened to ({@linkcode TargetOutcome.waiting}).
   */
  outcome: TargetState;
  /** The app's status: of the attempt that delivered it, else of the latest attempt (when it answered). */
  status?: number;
  /**
   * The attempt of {@linkcode TargetOutcome.status} was relayed, and its sender got hooktap's status instead
   * (this one), or nothing (`left`: it hung up before the answer).
   */
  sent?: SenderGot;
  /** Attempts recorded to this target (every source), not counting tries nothing listened to. */
  attempts: number;
  /**
   * How many of {@linkcode TargetOutcome.attempts} were sent by hand (`replay`, the inspector's Replay), not
   * by dev's forwarding and its retries; absent when none was.
   */
  replays?: number;
  /** The latest try found nothing listening: the event waits for the app to listen (no attempt spent). */
  waiting?: true;
}

/** An event's delivery summary, over its forward targets. */
export interface EventDelivery {
  /**
   * `none`: not forwarded (or no rule took it); else `delivered` when every
   * forward target is, `failed` when one is, `retrying` when one is, else `pending`.
   */
  state: "none" | TargetState;
  /**
   * One target: its status (see {@linkcode TargetOutcome.status}); several: the latest attempt's to any of
   * them; `null` when it got no answer or there was none.
   */
  status: number | null;
  /** Attempts to the forward targets. */
  attempts: number;
  /** Each forward target, in the mark's order (`[]`: not forwarded, or no rule matched). */
  targets: TargetOutcome[];
  /** Sends to other targets (`replay --to URL`): their own deliveries, never the forward state. */
  others: TargetOutcome[];
}

/** Whether record `r` is a delivery to the forward target `name` of `event`. */
export function isForwardRecord(
  event: Pick<CapturedEvent, "forward" | "query" | "params">,
  name: string,
  r: DeliveryFact,
): boolean {
  const mark = event.forward;
  if (mark === undefined) return false;
  if (r.target === name) return true;
  if (mark.targets !== undefined) return false;
  // One plain target: whatever its name, dev's own attempts are to it; a replay is when it went to its URL.
  return r.source !== "replay" || r.url === deliveryUrl(event, mark.to).href;
}

/**
 * Whether `r` is a replay (`hooktap replay`, the inspector's Replay) that found nothing listening: to a
 * forward target it changes nothing (no attempt, no replay, not the target's state).
 */
export function isIdleReplay(r: DeliveryFact): boolean {
  return r.refused === true && r.source === "replay";
}

/**
 * Whether `r` counts as an attempt: anything but `dev`'s tries nothing listened to (a wait for the app).
 * A replay nothing listened to counts only where it is kept: as a send elsewhere (`others`).
 */
export function isAttempt(r: DeliveryFact): boolean {
  return r.refused !== true || r.source === "replay";
}

/**
 * The few facts of one (event, target) its outcome is computed from, whatever the number of its records:
 * the inspector folds them record by record (src/inspector/delivery_fold.ts), {@linkcode eventDelivery}
 * over all of them; both through {@linkcode addFact} and {@linkcode outcomeFrom}, so they cannot disagree.
 */
export interface TargetFacts {
  /** Its latest record. */
  last?: DeliveryFact;
  /** Its first delivered record. */
  delivered?: DeliveryFact;
  /** Its latest record that was an attempt (not a try nothing listened to). */
  lastAttempt?: DeliveryFact;
  /** Its latest record of dev's own (forwarding, relaying, retrying: not a send by hand). */
  lastOwn?: DeliveryFact;
  /** Whether one of dev's own records was an attempt. */
  ownAttempted?: true;
  /** Attempts (records that were not tries nothing listened to). */
  attempts: number;
  /** Of those, the ones sent by hand (`source: "replay"`). */
  replays?: number;
}

/** Adds the target's next record (in the log's order) to its facts. */
export function addFact(facts: TargetFacts, fact: DeliveryFact): void {
  facts.last = fact;
  if (fact.outcome === "delivered") facts.delivered ??= fact;
  if (fact.source !== "replay") {
    facts.lastOwn = fact;
    if (isAttempt(fact)) facts.ownAttempted = true;
  }
  if (isAttempt(fact)) {
    facts.attempts++;
    if (fact.source === "replay") facts.replays = (facts.replays ?? 0) + 1;
    facts.lastAttempt = fact;
  }
}

/** Where the target `name` stands, from its facts. */
export function outcomeFrom(name: string, f: TargetFacts): TargetOutcome {
  const last = f.last;
  if (last === undefined) return { name, outcome: "pending", attempts: 0 };
  // Dev's own records say whether it still sends the event: a send by hand that fails neither ends its
  // retries nor gives up for it (only a 2xx settles the target). With no record of dev's, the latest send's.
  const basis = f.lastOwn ?? last;
  // Dev's latest try found nothing listening: it holds the event for the app, no attempt spent. It stays
  // `pending` while dev made no real attempt (`retrying` after one), and shows the last real answer;
  // `waiting` while no send answered since.
  const held = f.delivered === undefined && !isAttempt(basis) && basis.outcome !== "failed";
  const waiting = held && !isAttempt(last);
  const shown = f.delivered ?? (waiting ? f.lastAttempt : last);
  const sent: SenderGot | undefined = shown?.source !== "relay"
    ? undefined
    : shown.senderLeft
    ? "left"
    : shown.status !== undefined
    ? senderStatus(shown)
    : undefined;
  return {
    name,
    outcome: f.delivered ? "delivered" : held ? (f.ownAttempted ? "retrying" : "pending") : basis.outcome,
    ...(shown?.status !== undefined ? { status: shown.status } : {}),
    ...(sent !== undefined ? { sent } : {}),
    attempts: f.attempts,
    ...(f.replays !== undefined ? { replays: f.replays } : {}),
    ...(waiting ? { waiting: true as const } : {}),
  };
}

function outcomeOf(name: string, mine: readonly DeliveryFact[]): TargetOutcome {
  const facts: TargetFacts = { attempts: 0 };
  for (const r of mine) addFact(facts, r);
  return outcomeFrom(name, facts);
}

/** Where `event` stands, from its records (in file order). */
export function eventDelivery(
  event: Pick<CapturedEvent, "forward" | "query" | "params">,
  records: readonly DeliveryFact[] | undefined,
): EventDelivery {
  const all = records ?? [];
  const names = event.forward === undefined ? [] : markedTargets(event.forward);
  const taken = new Set<DeliveryFact>();
  let last: DeliveryFact | undefined;
  const targets = names.map((name) => {
    const ours = all.filter((r) => !taken.has(r) && isForwardRecord(event, name, r));
    for (const r of ours) taken.add(r);
    const mine = ours.filter((r) => !isIdleReplay(r));
    const end = mine[mine.length - 1];
    if (end !== undefined && (last === undefined || all.indexOf(end) > all.indexOf(last))) last = end;
    return outcomeOf(name, mine);
  });
  const otherNames: string[] = [];
  for (const r of all) if (!taken.has(r) && !otherNames.includes(r.target)) otherNames.push(r.target);
  const others = otherNames.map((name) =>
    outcomeOf(name, all.filter((r) => !taken.has(r) && r.target === name))
  );
  return {
    state: combined(targets),
    status: targets.length === 1 ? targets[0]!.status ?? null : last?.status ?? null,
    attempts: targets.reduce((n, t) => n + t.attempts, 0),
    targets,
    others,
  };
}

/** The event's state from its targets' (see {@linkcode EventDelivery.state}). */
export function combined(targets: readonly TargetOutcome[]): EventDelivery["state"] {
  if (targets.length === 0) return "none";
  if (targets.every((t) => t.outcome === "delivered")) return "delivered";
  for (const s of ["failed", "retrying"] as const) if (targets.some((t) => t.outcome === s)) return s;
  return "pending";
}

/** The JSON `delivery` field of `logs --json` (and the inspector's summary fields). */
export function deliveryJsonOf(d: EventDelivery): {
  status: number | null;
  outcome: EventDelivery["state"];
  attempts: number;
  targets: TargetOutcome[];
  others?: TargetOutcome[];
} {
  return {
    status: d.status,
    outcome: d.state,
    attempts: d.attempts,
    targets: d.targets,
    ...(d.others.length > 0 ? { others: d.others } : {}),
  };
}
