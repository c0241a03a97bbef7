/**
 * What `dev` finds at start for its forwarder, without holding events in
 * memory: per target, where its first waiting event is in
 * `.hooktap/events.jsonl` and how many wait (read back in order by the
 * forwarder, ./backlog.ts), events whose target the config no longer has,
 * and the (event, target) pairs an earlier run gave up on. Waiting is
 * decided by the one delivery-state model (./delivery_state.ts) over the
 * deliveries after the watermark.
 * @module
 */
import { type DeliveryRecord, targetNameOf } from "../event/delivery.ts";
import { type CapturedEvent, validAtReceipt } from "../event/record.ts";
import type { StorePaths } from "../store/paths.ts";
import { lineEndpoint, lineId } from "../store/read/line_key.ts";
import { eachTextLineSync, scanBackward, scanForward } from "../store/read/lines.ts";
import { openStoreReader, type StoreReader } from "../store/read/reader.ts";
import type { Place } from "./backlog.ts";
import { factOf, parseDeliveryLine, recordEvent } from "./deliveries_read.ts";
import { type DeliveryFact, eventDelivery } from "./delivery_state.ts";
import type { GivenUp } from "./undelivered.ts";
import { signatureFault } from "../providers/verdict_reason.ts";

/** A target as the scan needs it. */
export interface ScanTarget {
  readonly name: string;
  /** Its URL as configured (a plain mark's `to` names it). */
  readonly to: string;
  /** `"parallel"`, or arrival order (the default). */
  readonly order?: string | undefined;
  /** Attempts in flight at once (at least 1). */
  readonly concurrency?: number | undefined;
}

/** The waiting events of one target. */
export interface WaitingLane {
  endpoint: string;
  /** The target's name (as configured now). */
  name: string;
  /** Events waiting for it. */
  count: number;
  /** Where the first one is. */
  first: Place;
}

/** What the start of `dev` found. */
export interface ResumePlan {
  /** Per `endpoint\ntarget`: its waiting events. */
  lanes: Map<string, WaitingLane>;
  /** Events with some target still to deliver. */
  events: number;
  /** Waiting (event, target) pairs whose target the config no longer has, per `endpoint target`. */
  orphaned: Map<string, number>;
  /**
   * Of {@linkcode orphaned}, the URL each target was (a `--forward-to` of an earlier run names its target after
   * its URL): what `replay --undelivered --to` sends them to.
   */
  orphanedTo: Map<string, string>;
  /** (Event, target) pairs every attempt of which failed, in the whole deliveries log. */
  givenUp: GivenUp[];
  /** The newest event id looked at (later ones are new: not resumed). */
  lastId?: string;
  /** The event log's size when scanned. */
  size: number;
  /**
   * `endpoint\ntarget\nid` of the waiting events an arrival-order lane may have had in flight when the last
   * run ended: its first `concurrency` (such a lane sends from its head, in order, at most that many at once,
   * a held retry included). The ones behind them never went out. (A run whose config allowed more at once
   * than this one's is not known here.)
   */
  heads: Set<string>;
  /**
   * Which of the lanes' events to deliver, and as which attempt (for the forwarder's read-back); `resumed`
   * when the app may have seen an event of the last run already (see {@linkcode planResume}).
   */
  admit(
    endpoint: string,
    name: string,
  ): (event: CapturedEvent) => { attempt: number; resumed: boolean } | undefined;
}

/**
 * The configured target that a marked name stands for: by name, or for a plain mark the endpoint's one target
 * when it has the URL the event was marked for. An event marked for another URL (an earlier `--forward-to`, a
 * target whose URL changed) is not sent to this one: its readers would call the target it was meant for
 * delivered by an answer from another app. It is kept, reported as waiting for a target this run lacks.
 */
export function laneTarget<T extends ScanTarget>(
  event: CapturedEvent,
  name: string,
  list: readonly T[],
): T | undefined {
  const named = list.find((t) => t.name === name);
  if (named !== undefined || event.forward?.targets !== undefined) return named;
  const only = list.length === 1 ? list[0] : undefined;
  return only !== undefined && only.to === event.forward?.to ? only : undefined;
}

/**
 * Reads the deliveries log: the records of events after `mark`, and the given-up pairs of the whole log.
 * One synchronous pass over the log as text (dev is not listening yet): a line is parsed only when its
 * event is after the mark or it says `"outcome":"failed"` (JSON.stringify writes the field so; inside a
 * string value its quotes would be escaped); a second pass, only when something failed, looks for a
 * delivery of those events that makes up for it. A long history costs a text search, not a parse a line.
 */
export function readFacts(path: string, mark: string | undefined): {
  facts: Map<string, DeliveryFact[]>;
  givenUp: GivenUp[];
} {
  const facts = new Map<string, DeliveryFact[]>();
  /** Pairs, `event target`, with a failed attempt that was not a replay's, and those delivered. */
  const failed = new Map<string, { endpoint: string; target: string; event: string }>();
  const delivered = new Set<string>();
  let file: Deno.FsFile;
  try {
    file = Deno.openSync(path, { read: true });
  } catch {
    return { facts, givenUp: [] };
  }
  using f = file;
  const size = f.statSync().size;
  const note = (d: DeliveryRecord) => {
    const key = `${d.event} ${d.target}`;
    if (d.outcome === "delivered") delivered.add(key);
    if (d.outcome === "failed" && d.source !== "replay") {
      failed.set(key, { endpoint: d.endpoint, target: d.target, event: d.event });
    }
  };
  eachTextLineSync(f, size, (line) => {
    const event = recordEvent(line);
    const after = mark === undefined || event === undefined || event > mark;
    if (!after && !line.includes(FAILED)) return;
    const d = parseDeliveryLine(line);
    if (d === undefined) return;
    note(d);
    if (mark !== undefined && d.event <= mark) return;
    const fact = factOf(d); // a try nothing listened to stays no attempt (`refused`) in the resumed count
    const list = facts.get(d.event);
    if (list === undefined) facts.set(d.event, [fact]);
    else list.push(fact);
  });
  const open = new Set([...failed].filter(([key]) => !delivered.has(key)).map(([, p]) => p.event));
  if (open.size > 0) {
    // Was any of them delivered after all, in a line the first pass skipped (before the mark)?
    eachTextLineSync(f, size, (line) => {
      const event = recordEvent(line);
      if (event !== undefined && (!open.has(event) || !line.includes(DELIVERED))) return;
      const d = parseDeliveryLine(line);
      if (d !== undefined && open.has(d.event)) note(d);
    });
  }
  const groups = new Map<string, GivenUp>();
  for (const [key, p] of failed) {
    if (delivered.has(key)) continue;
    const group = `${p.endpoint} ${p.target}`;
    let g = groups.get(group);
    if (g === undefined) groups.set(group, g = { endpoint: p.endpoint, target: p.target, events: [] });
    g.events.push(p.event);
  }
  return { facts, givenUp: [...groups.values()] };
}

const FAILED = '"outcome":"failed"';
const DELIVERED = '"outcome":"delivered"';

/**
 * The given-up events still in the store: `prune`, retention and `rm` remove events (their lines in the
 * deliveries log stay), and reporting those would suggest a command that finds nothing. One pass over the
 * lines' heads (ids only), made only when an earlier run gave something up; the given-up lines are parsed
 * for their verdicts (a command that re-signs would be refused for those stored invalid).
 */
export async function stillStored(r: StoreReader, givenUp: GivenUp[]): Promise<GivenUp[]> {
  if (givenUp.length === 0) return givenUp;
  const wanted = new Set(givenUp.flatMap((g) => g.events));
  const found = new Map<string, Pick<CapturedEvent, "verdict" | "trigger"> | undefined>();
  for await (const line of scanForward(r.file, 0, r.size, { background: true })) {
    if (line.torn) break;
    const id = lineId(line.head);
    if (id !== undefined && wanted.has(id)) found.set(id, await r.parse(line));
    if (found.size === wanted.size) break;
  }
  return givenUp
    .map((g) => _withVerdicts({ ...g, events: g.events.filter((id) => found.has(id)) }, found))
    .filter((g) => g.events.length > 0);
}

/** `group` with its events' verdicts: those stored invalid, the deliberate faults, the others' verdict. */
function _withVerdicts(
  group: GivenUp,
  events: Map<string, Pick<CapturedEvent, "verdict" | "trigger"> | undefined>,
): GivenUp {
  const invalid: string[] = [];
  const others = new Set<string>();
  let faults = 0;
  let unrenewed = 0;
  for (const id of group.events) {
    const event = events.get(id);
    if (event?.verdict?.status === "invalid") {
      invalid.push(id);
      if (signatureFault(event) !== undefined) faults++;
    } else {
      others.add(event?.verdict?.status ?? "unsigned");
      if (event !== undefined && !validAtReceipt(event)) unrenewed++;
    }
  }
  const renewal = unrenewed > 0 ? { unrenewed } : {};
  if (invalid.length === 0) return { ...group, ...renewal };
  return {
    ...group,
    invalid,
    ...(faults > 0 ? { faults } : {}),
    ...(others.size === 1 ? { othersVerdict: [...others][0]! } : {}),
    ...renewal,
  };
}

/** Whether `target` sends in arrival order (every target but a `parallel` one; an unknown one counts as parallel). */
function _ordered(target: ScanTarget | undefined): boolean {
  return target !== undefined && target.order !== "parallel";
}

/**
 * Scans the store after the watermark `mark` for events still to deliver to the targets `targetsOf`
 * gives per endpoint (streaming: one event in memory at a time).
 *
 * A waiting event of the last run is sent `resumed` (the app may have seen it) when that run did not stop
 * cleanly (`lastRunClean` false: an attempt of it may have gone unrecorded) and it may have been in flight
 * (in an arrival-order lane, one of its first `concurrency` waiting events: {@linkcode ResumePlan.heads}; in
 * a parallel one, any), or when a recorded attempt of it to that target reached something listening (any
 * but a `refused` try). Else it is a plain delivery.
 */
export async function planResume<T extends ScanTarget>(
  paths: StorePaths,
  mark: string | undefined,
  targetsOf: (endpoint: string) => readonly T[] | undefined,
  lastRunClean = false,
): Promise<ResumePlan> {
  const { facts, givenUp } = readFacts(paths.deliveries, mark);
  const plan: ResumePlan = {
    lanes: new Map(),
    events: 0,
    orphaned: new Map(),
    orphanedTo: new Map(),
    givenUp,
    size: 0,
    heads: new Set(),
    admit: (endpoint, name) => (event) => {
      if (event.endpoint !== endpoint || event.forward === undefined) return undefined;
      const list = targetsOf(endpoint) ?? [];
      for (const t of eventDelivery(event, facts.get(event.id)).targets) {
        if (laneTarget(event, t.name, list)?.name !== name) continue;
        if (t.outcome === "delivered" || t.outcome === "failed") return undefined;
        const old = plan.lastId !== undefined && event.id <= plan.lastId;
        // `attempts` counts the recorded attempts that found something listening (refused tries are none);
        // dev numbers (and spends its retries on) its own, never the sends by hand among them.
        // An unclean stop: an attempt may have gone out unrecorded, for an arrival-order lane only to one of
        // its first events (`heads`), for a parallel one to any.
        const inFlight = !lastRunClean &&
          (!_ordered(list.find((x) => x.name === name)) ||
            plan.heads.has(`${endpoint}\n${name}\n${event.id}`));
        return { attempt: t.attempts - (t.replays ?? 0) + 1, resumed: old && (inFlight || t.attempts > 0) };
      }
      return undefined;
    },
  };
  const reader = await openStoreReader(paths);
  if (reader === null) {
    plan.givenUp = []; // no event left to send again
    return plan;
  }
  using r = reader;
  plan.size = r.size;
  plan.givenUp = await stillStored(r, givenUp);
  let start = 0;
  if (mark !== undefined) {
    start = r.size;
    for await (const line of scanBackward(r.file, r.size, { background: true })) {
      const id = lineId(line.head);
      if (id !== undefined && id <= mark) break;
      start = line.start;
    }
  }
  for await (const line of scanForward(r.file, start, r.size, { background: true })) {
    if (line.torn) break;
    const endpoint = lineEndpoint(line.head);
    if (endpoint === undefined) continue;
    const id = lineId(line.head)!;
    if (plan.lastId === undefined || id > plan.lastId) plan.lastId = id;
    const list = targetsOf(endpoint);
    const event = await r.parse(line);
    if (event?.forward === undefined) continue;
    let waiting = false;
    for (const t of eventDelivery(event, facts.get(event.id)).targets) {
      if (t.outcome === "delivered" || t.outcome === "failed") continue;
      waiting = true;
      const target = laneTarget(event, t.name, list ?? []);
      if (target === undefined) {
        const key = `${endpoint} ${t.name}`;
        plan.orphaned.set(key, (plan.orphaned.get(key) ?? 0) + 1);
        if (targetNameOf(event.forward.to) === t.name) plan.orphanedTo.set(key, event.forward.to);
        continue;
      }
      const key = `${endpoint}\n${target.name}`;
      const lane = plan.lanes.get(key);
      if (_ordered(target) && (lane?.count ?? 0) < Math.max(1, target.concurrency || 1)) {
        plan.heads.add(`${key}\n${event.id}`);
      }
      if (lane === undefined) {
        plan.lanes.set(key, {
          endpoint,
          name: target.name,
          count: 1,
          first: { offset: line.start, id: event.id },
        });
      } else lane.count++;
    }
    if (waiting) plan.events++;
  }
  return plan;
}
