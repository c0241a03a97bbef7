/**
 * The forwarder: delivers stored events to their targets. One lane per
 * target (endpoint, name and URL), and the rules of a delivery that tells
 * the truth:
 *
 * - **An app that is down costs no attempts.** A refused connection
 *   (nothing listens) holds the lane: its events wait, a cheap TCP connect
 *   checks the target about every second, and they go out as soon as it
 *   accepts connections again, however long it was down.
 * - **Attempts and backoff apply to answers** (5xx, 429, 408) and to
 *   attempts that got no answer in time; when the policy ends the event is
 *   given up ("failed"), and only then.
 * - **Arrival order** (`order: "arrival"`, the default): a retry holds the
 *   lane, and whenever events wait (the app down, a retry, a resume after a
 *   restart) they go one at a time, in the order hooktap received them,
 *   until the lane has caught up. `order: "parallel"` lets the others pass.
 * - **Bounded memory**: a lane keeps a small window of events in memory; past
 *   it, only a place in `.hooktap/events.jsonl` (./backlog.ts), read back in
 *   order as the lane drains. The first event not in memory is pinned
 *   ({@linkcode ForwarderOptions.onPin}) so the watermark never passes it.
 *
 * In relay mode one attempt is made and its answer handed back for the sender.
 * Every attempt is appended to the deliveries log.
 * @module
 */
import type { Forwarding } from "../ports.ts";
import type { DeliveryRecord } from "../event/delivery.ts";
import type { CapturedEvent } from "../event/record.ts";
import type { Backlog, Place } from "./backlog.ts";
import type { DeliveriesLog } from "./deliveries_log.ts";
import {
  type AttemptOutcome,
  deliverOnce,
  type DeliverOptions,
  type PreparedRequest,
  storedRequest,
} from "./deliver.ts";
import { nextDelay } from "./retry.ts";
import type { ForwardTarget } from "./target.ts";
import { noteSender, RELAY_BODY_MAX, relayAnswer, type StalledWrite } from "./relay_answer.ts";
import { RelayBudget, type RelayLease } from "./relay_budget.ts";
import { connectTcp } from "./http1.ts";
import { encodeFor } from "./client.ts";
import { deliveryUrl } from "./target.ts";

/**
 * Makes the request of an attempt (see {@linkcode ForwarderOptions.prepare}). Its `whole` says which events
 * it may need whole (their headers and body); without it, every event. An event read back from the store
 * that it never needs whole waits in its lane as the bytes of its request and a copy of its small fields
 * (the parsed event, kept while it waits, outlived young-generation collections: issue 36); `prepare` is
 * still called with that copy, whose `headers` are empty and `body` is `""`.
 */
export interface Prepare {
  (
    event: CapturedEvent,
    attempt: number,
    target: ForwardTarget,
  ): PreparedRequest | undefined | Promise<PreparedRequest | undefined>;
  whole?: (event: CapturedEvent) => boolean;
}

/**
 * The key of an (endpoint, target) in what {@linkcode Forwarder.retire} returns: two endpoints may forward to
 * one unnamed URL, whose target name is then the same.
 */
export function retiredKey(target: Pick<ForwardTarget, "endpoint" | "name">): string {
  return `${target.endpoint}\n${target.name}`;
}

/** A change of a target's reachability, reported once per change. */
export interface AppState {
  /** `host:port` of the target. */
  host: string;
  up: boolean;
  /** Why it is down. */
  reason?: string;
  /**
   * When it is back: the deliveries that waited for it and go out now (in memory and in the store), the one
   * whose answer said it is back included.
   */
  waiting?: number;
  /** Of {@linkcode AppState.waiting}: how many targets (lanes) they wait for; order holds within each. */
  targets?: number;
  /** It went down under a relay attempt: that sender got a 502, nothing waits for it. */
  relay?: boolean;
  /** With {@linkcode AppState.relay}: the id of the event whose relay found it down. */
  event?: string;
}

/** Which events of the store a lane reads back, and as which attempt; `undefined`: not this lane's. */
export type Admit = (event: CapturedEvent) => { attempt: number; resumed: boolean } | undefined;

/** What {@linkcode Forwarder.stop} left behind: attempts the app may have seen that no record tells. */
export interface StopReport {
  /** Attempts still in flight when the grace ended: abandoned, never recorded. */
  abandoned: number;
  /** Attempts of this run whose record could not be written (the deliveries log failed). */
  unrecorded: number;
}

/** Options of {@linkcode createForwarder}. */
export interface ForwarderOptions {
  /** Where attempts are recorded. */
  log: Pick<DeliveriesLog, "append" | "newId">;
  /** The bound of relayed answers held in memory at once (./relay_budget.ts). @default 128 MiB */
  relayBudget?: RelayBudget;
  /**
   * Makes the request of an attempt (a re-signed copy when the signature's
   * tolerance has passed). `undefined` sends the stored request.
   * @default () => undefined
   */
  prepare?: Prepare;
  /** Called after each attempt is recorded. */
  onDelivery?: (record: DeliveryRecord, event?: CapturedEvent) => void;
  /** Called when a target stops or starts answering. */
  onAppState?: (state: AppState) => void;
  /**
   * Called when a relayed answer's sender has not read it whole within the target's `timeout`: its connection
   * was closed and its share of the relay budget given back (./relay_answer.ts).
   */
  onSenderStalled?: (event: CapturedEvent, target: ForwardTarget, stalled: StalledWrite) => void;
  /** Called when an event's forwarding to one target has settled (delivered, or given up). */
  onSettled?: (event: CapturedEvent, target: ForwardTarget) => void;
  /** Called when an event enters memory for a target (from `enqueue` or read back from the store). */
  onTake?: (event: CapturedEvent, target: ForwardTarget) => void;
  /**
   * Called with the id of a target's first event that is not in memory (it is in the store): it counts as
   * taken until it settles, so the watermark stays before it. Read back, it is not taken again.
   */
  onPin?: (id: string) => void;
  /** Called when the deliveries log cannot be written, or the store cannot be read back. */
  onError?: (error: unknown) => void;
  /** Clock. @default () => new Date() */
  now?: () => Date;
  /**
   * How often to check, while a target refuses connections, whether it accepts them again, in ms.
   * @default 1000
   */
  probeMs?: number;
  /** The check: resolves when a TCP connection to `host:port` opens. @default Deno.connect, closed at once */
  connect?: (hostname: string, port: number) => Promise<void>;
  /**
   * Where events past a lane's window are read back from; without it every waiting event stays in memory.
   * {@linkcode Forwarder.stop} closes it.
   */
  backlog?: Backlog;
  /** Whether a target's lane may leave events in the store (not a relay target's). @default () => true */
  spills?: (target: ForwardTarget) => boolean;
  /** Events a lane keeps in memory (waiting and in flight). @default 64 */
  window?: number;
  /** Body bytes a lane keeps in memory (at least one event). @default 8 MiB */
  windowBytes?: number;
}

/**
 * Attempts started by the connect check that got no answer (a dev server still compiling after it came back):
 * free, at most, per event. While they are free the next successful connect starts another; past them (or for
 * an attempt not started by the check) only a restart seen by the check (refused, then accepting) ends the
 * backoff early.
 */
export const MAX_FREE_ATTEMPTS = 30;

/** Ids of events read back that a lane remembers, for their enqueue that may come after. */
const READ_BACK_IDS = 1024;

/** Events a lane keeps in memory by default. */
export const WINDOW = 64;

/**
 * The buffers the requests of a lane's events read back are built in, shared by many (an ArrayBuffer each was
 * memory outside the heap that the collector must track and free): a request of up to a quarter of one is
 * built in the lane's current one, a larger one in its own. A buffer is freed once the last of its requests
 * is. Each lane has its own, filled in its order: a lane whose events go in order holds its window's requests
 * and at most two buffers more (shared between lanes, a lane left waiting could hold a buffer per event); a
 * retry left behind by later deliveries (`order: "parallel"`) holds its one buffer until it settles.
 */
const SLAB_BYTES = 64 * 1024;

const NO_HEADERS: [string, string][] = [];

/**
 * `event` as a job read back waits for its turn: the bytes of its stored request to `target`, and a copy of
 * its fields but the headers and the body (what the lane, the records, the log lines and `prepare`'s choice
 * read); `undefined` when it must stay whole (`prepare` may need it, an https target, a request that cannot
 * be sent: its attempt says why).
 */
function held(
  event: CapturedEvent,
  target: ForwardTarget,
  prepare: Prepare | undefined,
  lend: (size: number) => Uint8Array,
): { event: CapturedEvent; request: PreparedRequest } | undefined {
  if (prepare !== undefined && (prepare.whole === undefined || prepare.whole(event))) return undefined;
  const stored = storedRequest(event);
  const encoded = encodeFor(deliveryUrl(event, target.to), stored, lend);
  if (encoded === undefined) return undefined;
  const copy: CapturedEvent = { ...event, headers: NO_HEADERS, body: "" };
  return { event: copy, request: { method: stored.method, headers: NO_HEADERS, body: null, encoded } };
}

async function _connect(hostname: string, port: number): Promise<void> {
  const conn = await connectTcp(hostname, port);
  conn.close();
}

/** A running forwarder. */
export interface Forwarder extends Forwarding {
  /**
   * Queue mode: delivers `event` in the background, retrying as the target allows. Returns whether it
   * entered memory now (`onTake` was called); `false` when it waits in the store (or the forwarder stopped).
   */
  enqueue(event: CapturedEvent, target: ForwardTarget, resume?: { attempt: number }): boolean;
  /**
   * Delivers a target's events read back from the store, from `from` on (the events `admit` takes), in
   * order, before any enqueued later. `count`: how many there are (for `pending`); `key` names a lane of
   * its own; `until` stops reading at that byte.
   */
  resumeFrom(
    target: ForwardTarget,
    from: Place,
    admit: Admit,
    options: { count: number; until?: number; key?: string },
  ): Resuming;
  /**
   * Relay mode: one attempt; the app's answer, or hooktap's 502 or 503 saying why not. `left`: aborted when
   * the sender hung up (its record then says the app's answer reached no one); `stopped`: aborted when dev's
   * shutdown answered the sender itself (its record then says the sender got hooktap's 502).
   */
  relay(
    event: CapturedEvent,
    target: ForwardTarget,
    left?: AbortSignal,
    stopped?: AbortSignal,
  ): Promise<Response>;
  /** Deliveries not yet settled (in memory and waiting in the store). */
  readonly pending: number;
  /** Events in memory, every lane (bounded by the window per lane when a backlog is given). */
  readonly inMemory: number;
  /**
   * Queued deliveries whose attempt is under way (sent, or being sent, and not answered yet); after
   * {@linkcode Forwarder.stop}, those whose grace ran out (counted in `pending`: the next start sends them again).
   */
  readonly inFlight: number;
  /** Relayed requests whose attempt is under way (the sender waits for the app's answer). */
  readonly relaying: number;
  /**
   * How many targets (lanes) have deliveries waiting, not in flight (in memory or in the store): order holds
   * within each. After {@linkcode Forwarder.stop}, those that had some when it stopped.
   */
  readonly pendingTargets: number;
  /** Resolves when nothing is pending. */
  idle(): Promise<void>;
  /**
   * A reload removed targets: drops the events queued or waiting for a retry
   * to the targets `retired` picks (they stay undelivered in the log, for the
   * next start's report and `replay --undelivered`; an attempt in flight
   * finishes and is recorded). Returns the ids dropped per (endpoint, target), keyed by
   * {@linkcode retiredKey}; `inStore`, when given, gets under the same keys how many more were left in the
   * store beyond the memory window (not read back: ids unknown).
   */
  retire(
    retired: (target: ForwardTarget) => boolean,
    inStore?: Map<string, number>,
  ): Map<string, Set<string>>;
  /**
   * Stops taking new attempts (waiting events are dropped, to be found
   * undelivered at the next start) and waits up to `graceMs` for in-flight
   * ones (queued and relayed); says which attempts no record tells.
   */
  stop(graceMs?: number): Promise<StopReport>;
}

/**
 * A target's lane set up to read its waiting events back, paused: events enqueued meanwhile stay in the
 * store behind them (so nothing delivered live before the resume is read back and sent twice).
 */
export interface Resuming {
  /** Delivers them (and then the events enqueued meanwhile), in order. */
  start(): void;
  /** Leaves them (`--skip-pending`): reads on from `from`, taking what `admit` takes (the events enqueued meanwhile). */
  skip(from: Place, admit: Admit): void;
}

interface Job {
  event: CapturedEvent;
  target: ForwardTarget;
  /** Arrival order in its lane. */
  seq: number;
  /** Number of the next attempt (recorded). */
  attempt: number;
  /** Attempts that count against the policy this run (no answer because nothing listens is free). */
  counted: number;
  /** Sent again after a restart. */
  resumed?: boolean;
  /** This attempt was started by the connect check. */
  early?: boolean;
  /** Early attempts that got no answer. */
  free?: number;
  /** Bytes it holds. */
  size: number;
  /**
   * Read back from the store: its stored request, built as bytes for its target ({@linkcode held}), sent
   * unless `prepare` makes another; `event` is then a copy of the event's small fields.
   */
  request?: PreparedRequest;
}

interface Spill {
  /** Where to read on; `undefined` while the first event's place is looked for. */
  place?: Place;
  /** The first event not in memory (counted as taken through `onPin`). */
  pin: string;
  admit: Admit;
  until?: number;
  /** Events it holds, for `pending`. */
  count: number;
  /** Events enqueued (and left in the store) so far. */
  ignores: number;
  /** Set up, not reading yet (see {@linkcode Resuming}). */
  paused?: boolean;
  reading: boolean;
  endpoint: string;
}

/** The deliveries of `lane` waiting, not in flight: in memory and in the store. */
function _waitingIn(lane: Lane): number {
  return lane.jobs - lane.running + (lane.spill?.count ?? 0);
}

interface Lane {
  key: string;
  /** Its target (the last job's). */
  sample?: ForwardTarget;
  /** Removed by a reload: its jobs are dropped, not retried. */
  retired?: Map<string, Set<string>>;
  queue: Fifo<Job>;
  /** Jobs to send again, by arrival order: they go before the queue. */
  retries: Job[];
  running: number;
  /** Jobs in memory (queue, retries, in flight, waiting on a timer) and their bytes and ids. */
  jobs: number;
  bytes: number;
  ids: Set<string>;
  seq: number;
  /** Events wait: one at a time, in order (arrival mode), until the lane has caught up. */
  serial: boolean;
  /**
   * The lane waits: until a time (a retry's), or until `host` accepts connections (down). With both, the
   * connect check may end the wait: when `restart`, only once a check was refused (`refusedSince`) and a
   * later one succeeds (the app restarted; an app that accepts and closes keeps its backoff).
   */
  hold?: {
    timer?: ReturnType<typeof setTimeout>;
    host?: string;
    restart?: boolean;
    refusedSince?: boolean;
  } | undefined;
  /** Parallel mode: retries waiting on their own timers. */
  side: Map<ReturnType<typeof setTimeout>, Job>;
  spill?: Spill | undefined;
  /**
   * Ids this lane took lately, by enqueue or read back (at most {@linkcode READ_BACK_IDS}): an event is stored
   * before it is enqueued, so a read can take it first (its enqueue, when it comes, must not take it again),
   * and a read must not take one an enqueue took.
   */
  once: Set<string>;
  /** The ids of `once` in the order taken, a ring: the next to forget is at `onceAt`. */
  onceRing: string[];
  onceAt: number;
  /** The buffer its read-back requests are built in now, and how much of it is taken ({@linkcode SLAB_BYTES}). */
  slab?: Uint8Array;
  slabUsed: number;
}

/**
 * A first-in first-out queue whose `shift` is O(1) however long it is:
 * `Array.prototype.shift` copies a long array (tens of thousands of waiting
 * jobs when the app is slower than the sender), which was the forwarder's top
 * self time under load (bench/forward_profile.ts).
 */
export class Fifo<T> {
  #items: (T | undefined)[] = [];
  #head = 0;
  get length(): number {
    return this.#items.length - this.#head;
  }
  push(item: T): void {
    this.#items.push(item);
  }
  /** The oldest item, left in place. */
  peek(): T | undefined {
    return this.#items[this.#head];
  }
  shift(): T | undefined {
    if (this.#head === this.#items.length) return undefined;
    const item = this.#items[this.#head];
    this.#items[this.#head++] = undefined;
    if (this.#head === this.#items.length) {
      this.#items = [];
      this.#head = 0;
    } else if (this.#head >= 1024 && this.#head * 2 >= this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }
  /** Empties it, returning what it held, oldest first. */
  drain(): T[] {
    const items = this.#items.slice(this.#head) as T[];
    this.#items = [];
    this.#head = 0;
    return items;
  }
}

/**
 * The delivery engine behind {@linkcode createForwarder}: the lanes' shared state (private fields) and the
 * steps over it (private methods); its public methods are the {@linkcode Forwarder}'s.
 */
class ForwarderEngine {
  readonly #options: ForwarderOptions;
  readonly #now: () => Date;
  readonly #window: number;
  readonly #windowBytes: number;
  readonly #backlog: Backlog | undefined;
  readonly #lanes = new Map<string, Lane>();
  readonly #down = new Map<string, boolean>();
  /** Jobs in flight and their runs. */
  readonly #inFlight = new Map<Job, Promise<void>>();
  /** Relay attempts running (to their record), and the runs to wait for at stop. */
  #relaying = 0;
  readonly #relays = new Set<Promise<unknown>>();
  /** The bytes of relayed answers held in memory at once, bounded. */
  readonly #relayBudget: RelayBudget;
  /** Attempts whose record could not be appended. */
  #unrecorded = 0;
  #pending = 0;
  /** {@linkcode Forwarder.pendingTargets} when stop began. */
  #stoppedTargets: number | undefined;
  #inMemory = 0;
  #stopped = false;
  #idleWaiters: (() => void)[] = [];
  readonly #hosts = new Map<string, string>();
  readonly #probing = new Set<string>();
  readonly #probeTimers = new Set<ReturnType<typeof setTimeout>>();
  readonly #probeMs: number;
  readonly #connect: (hostname: string, port: number) => Promise<void>;

  constructor(options: ForwarderOptions) {
    this.#options = options;
    this.#now = this.#options.now ?? (() => new Date());
    this.#window = Math.max(1, this.#options.window ?? WINDOW);
    this.#windowBytes = this.#options.windowBytes ?? 8 * 1024 * 1024;
    this.#backlog = this.#options.backlog;
    this.#probeMs = this.#options.probeMs ?? 1000;
    this.#relayBudget = this.#options.relayBudget ?? new RelayBudget();
    this.#connect = this.#options.connect ?? _connect;
  }

  #done(n = 1) {
    this.#pending -= n;
    if (this.#pending <= 0) {
      this.#pending = 0;
      for (const w of this.#idleWaiters) w();
      this.#idleWaiters = [];
    }
  }
  /** A job leaves memory. */
  #release(lane: Lane, job: Job) {
    lane.jobs--;
    this.#inMemory--;
    lane.bytes -= job.size;
    lane.ids.delete(job.event.id);
  }
  #settle(lane: Lane, job: Job) {
    this.#release(lane, job);
    this.#options.onSettled?.(job.event, job.target);
    this.#done();
  }
  /** A job of a retired lane: not settled (it stays undelivered), no longer pending here. */
  #abandon(lane: Lane, job: Job) {
    this.#release(lane, job);
    const key = retiredKey(job.target);
    const ids = lane.retired!.get(key) ?? new Set<string>();
    lane.retired!.set(key, ids.add(job.event.id));
    this.#done();
  }

  #hostOf(to: string) {
    let host = this.#hosts.get(to);
    if (host === undefined) this.#hosts.set(to, host = new URL(to).host);
    return host;
  }
  #ordered(target: ForwardTarget) {
    return target.order !== "parallel";
  }
  /** The deliveries waiting for `host` (every target on it, or on any host when none is given), and their lanes. */
  #waitingFor(host?: string): { waiting: number; targets: number } {
    let waiting = 0;
    let targets = 0;
    for (const lane of this.#lanes.values()) {
      if (lane.sample !== undefined && (host === undefined || this.#hostOf(lane.sample.to) === host)) {
        const n = lane.jobs + (lane.spill?.count ?? 0);
        waiting += n;
        if (n > 0) targets++;
      }
    }
    return { waiting, targets };
  }

  #noteState(target: ForwardTarget, outcome: AttemptOutcome, event: CapturedEvent) {
    const host = this.#hostOf(target.to);
    const isDown = outcome.error?.kind === "refused";
    if (!isDown && outcome.response === undefined) return; // no answer in time: not "answers again"
    const wasDown = this.#down.get(host) ?? false;
    if (isDown === wasDown) return;
    this.#down.set(host, isDown);
    if (isDown) {
      return this.#options.onAppState?.({
        host,
        up: false,
        reason: outcome.error!.message,
        ...(target.mode === "relay" ? { relay: true, event: event.id } : {}),
      });
    }
    for (const lane of this.#lanes.values()) {
      if (lane.hold?.host === host) {
        if (lane.hold.timer !== undefined) clearTimeout(lane.hold.timer);
        lane.hold = undefined;
        this.#pump(lane);
      }
    }
    // The events that waited and go out now: every one held for this host, this one too (it is still in its
    // lane's memory while its outcome is noted), whether or not it was delivered.
    this.#options.onAppState?.({ host, up: true, ...this.#waitingFor(host) });
  }

  async #attempt(job: Job, maxBody?: number, budget?: RelayLease): Promise<AttemptOutcome> {
    const { event, target } = job;
    const prepared = this.#options.prepare?.(event, job.attempt, target);
    const request = prepared instanceof Promise ? await prepared : prepared;
    const outcome = await deliverOnce(event, target, this.#deliverOptions(job, request, maxBody, budget));
    this.#noteState(target, outcome, event);
    return outcome;
  }

  /** The options of `job`'s attempt. */
  #deliverOptions(
    job: Job,
    request: PreparedRequest | undefined,
    maxBody?: number,
    budget?: RelayLease,
  ): DeliverOptions {
    const target = job.target;
    // Set field by field: a spread of a conditional object is one more object per delivery.
    const options: DeliverOptions = {
      id: this.#options.log.newId(this.#now()),
      source: target.mode === "relay" ? "relay" : "forward",
      attempt: job.attempt,
      timeoutMs: target.timeoutMs,
      insecure: target.insecure,
      now: this.#now,
    };
    if (job.resumed) options.resumed = true;
    if (target.ca !== undefined) options.ca = target.ca;
    if (request !== undefined) options.request = request;
    if (maxBody !== undefined) options.maxBody = maxBody;
    if (budget !== undefined) options.budget = budget;
    return options;
  }

  async #record(record: DeliveryRecord, event?: CapturedEvent): Promise<void> {
    try {
      await this.#options.log.append(record);
    } catch (error) {
      this.#notRecorded(error);
    }
    this.#options.onDelivery?.(record, event);
  }

  #notRecorded(error: unknown): void {
    this.#unrecorded++;
    if (!this.#stopped) this.#options.onError?.(error); // after stop the log is closed: the next start redelivers
  }

  /** One lane per target: an endpoint's targets each have their own queue and retries. */
  #keyOf(target: ForwardTarget) {
    return `${target.endpoint ?? ""}\n${target.name}\n${target.to}`;
  }

  #laneOf(target: ForwardTarget, key = this.#keyOf(target)): Lane {
    let lane = this.#lanes.get(key);
    if (lane === undefined) {
      lane = {
        key,
        queue: new Fifo(),
        retries: [],
        running: 0,
        jobs: 0,
        bytes: 0,
        ids: new Set(),
        seq: 0,
        serial: false,
        side: new Map(),
        once: new Set(),
        onceRing: [],
        onceAt: 0,
        slabUsed: 0,
      };
      this.#lanes.set(key, lane);
    }
    lane.sample = target;
    return lane;
  }

  /** Notes that `lane` took event `id` (see {@linkcode Lane.once}). */
  #remember(lane: Lane, id: string) {
    if (lane.once.has(id)) return;
    lane.once.add(id);
    // The oldest is forgotten through a ring of the ids (finding it by iterating the set cost an iterator
    // and its results per event).
    const at = lane.onceAt;
    const old = lane.onceRing[at];
    if (old !== undefined) lane.once.delete(old);
    lane.onceRing[at] = id;
    lane.onceAt = at + 1 === READ_BACK_IDS ? 0 : at + 1;
  }
  #full(lane: Lane) {
    return lane.jobs >= this.#window || (lane.jobs > 0 && lane.bytes >= this.#windowBytes);
  }
  #sizeOf(event: CapturedEvent) {
    return event.bodySize + 512;
  }

  /** Puts an event in memory, at the end of its lane. */
  #admitJob(
    lane: Lane,
    event: CapturedEvent,
    target: ForwardTarget,
    attempt: number,
    resumed: boolean,
    request?: PreparedRequest,
  ) {
    const job: Job = { event, target, seq: lane.seq++, attempt, counted: 0, size: this.#sizeOf(event) };
    if (resumed) job.resumed = true;
    if (request !== undefined) job.request = request;
    // Events that waited (the last run's, or a hub's catch-up: the channel kept them) go one at a time, in order.
    if (resumed || event.hub !== undefined) lane.serial = true;
    lane.jobs++;
    this.#inMemory++;
    lane.bytes += job.size;
    lane.ids.add(event.id);
    lane.queue.push(job);
  }

  #insertRetry(lane: Lane, job: Job): void {
    const list = lane.retries;
    let i = list.length;
    while (i > 0 && list[i - 1]!.seq > job.seq) i--;
    list.splice(i, 0, job);
  }

  #pump(lane: Lane): void {
    if (this.#stopped || lane.retired) return;
    const target = lane.sample;
    if (target !== undefined && lane.hold === undefined) {
      const limit = this.#ordered(target) && lane.serial ? 1 : Math.max(1, target.concurrency || 1);
      while (lane.running < limit) {
        const job = lane.retries.length > 0 ? lane.retries.shift() : lane.queue.shift();
        if (job === undefined) break;
        this.#start(lane, job);
      }
    }
    this.#refill(lane);
    if (lane.jobs === 0 && lane.spill === undefined) lane.serial = false;
  }

  #start(lane: Lane, job: Job): void {
    lane.running++;
    this.#inFlight.set(job, this.#run(lane, job));
  }

  /**
   * Runs a job to its end: one async frame, the attempt and its record written inline (an async function per
   * step, `#attempt`, `#record`, and one around them, were a generator, a promise and awaits each per
   * delivery; `.catch().finally()` made two more promises and closures).
   */
  async #run(lane: Lane, job: Job): Promise<void> {
    try {
      const target = job.target;
      const prepared = this.#options.prepare?.(job.event, job.attempt, target);
      const request = (prepared instanceof Promise ? await prepared : prepared) ?? job.request;
      const outcome = await deliverOnce(job.event, target, this.#deliverOptions(job, request));
      this.#noteState(target, outcome, job.event);
      const refused = outcome.error?.kind === "refused";
      // Started by the connect check and no answer (a dev server still compiling): free, a bounded number of times.
      const freeEarly = !refused && job.early === true && outcome.response === undefined &&
        (job.free ?? 0) < MAX_FREE_ATTEMPTS;
      const counted = job.counted + (refused || freeEarly ? 0 : 1);
      const delivered = outcome.record.outcome === "delivered";
      let delay: number | undefined;
      if (!delivered && !refused) delay = nextDelay(target, counted, outcome.record, this.#now().getTime());
      if (refused) outcome.record.refused = true; // a wait for the app, not an attempt (delivery_state.ts)
      if (!delivered && (refused || delay !== undefined)) {
        outcome.record.outcome = "retrying";
        if (delay !== undefined) {
          outcome.record.retryAt = new Date(this.#now().getTime() + delay).toISOString();
        }
      }
      // The connect check may end an arrival-order lane's wait after a closed connection, when the app restarts
      // (below): said so.
      if (
        delay !== undefined && outcome.error?.kind === "reset" && this.#ordered(target) && this.#probeMs > 0
      ) {
        outcome.record.retrySooner = true;
      }
      try {
        await this.#options.log.append(outcome.record);
      } catch (error) {
        this.#notRecorded(error);
      }
      this.#options.onDelivery?.(outcome.record, job.event);
      if (outcome.record.outcome !== "retrying") return this.#settle(lane, job);
      if (this.#stopped) return; // left for the next start
      if (lane.retired) return this.#abandon(lane, job);
      this.#retry(lane, job, outcome, refused, freeEarly, counted, delay);
    } catch (error) {
      this.#options.onError?.(error);
    } finally {
      this.#inFlight.delete(job);
      lane.running--;
      this.#pump(lane);
    }
  }

  /**
   * Puts `job` back in its lane for its next attempt (the job's own timer or the lane's wait). Apart from
   * {@linkcode Forwarder.#run}: its closures would make every delivery's frame hold a context.
   */
  #retry(
    lane: Lane,
    job: Job,
    outcome: AttemptOutcome,
    refused: boolean,
    freeEarly: boolean,
    counted: number,
    delay: number | undefined,
  ): void {
    const target = job.target;
    const next: Job = {
      ...job,
      // A try nothing listened to is not an attempt: the next one keeps its number.
      attempt: refused ? job.attempt : job.attempt + 1,
      counted,
      early: false,
      free: (job.free ?? 0) + (freeEarly ? 1 : 0),
    };
    lane.serial = true;
    if (refused) {
      // Nothing listens: the lane waits, without spending attempts, until the target accepts connections.
      this.#insertRetry(lane, next);
      const host = this.#hostOf(target.to);
      if (this.#down.get(host) !== true) {
        // It was back up meanwhile (another attempt got an answer): go again at once.
        return;
      }
      if (lane.hold === undefined) lane.hold = { host };
      this.#backlog?.rest(); // nothing is read back while it waits
      this.#probe(host);
      return;
    }
    if (this.#ordered(target)) {
      // Arrival order: the lane waits with this event at its head.
      this.#insertRetry(lane, next);
      if (lane.hold === undefined) {
        // The connection closed without an answer: the connect check may end the wait early when the app
        // restarts (refused, then accepting), or while it starts (a free early attempt: the next connect).
        // Not after a timeout: the app accepted and kept silent, so the backoff is its pace.
        const host = outcome.error?.kind === "reset" ? this.#hostOf(target.to) : undefined;
        const hold: NonNullable<Lane["hold"]> = host === undefined ? {} : { host, restart: !freeEarly };
        hold.timer = setTimeout(() => {
          if (lane.hold === hold) lane.hold = undefined;
          this.#pump(lane);
        }, delay);
        lane.hold = hold;
        this.#backlog?.rest(); // nothing is read back while it waits
        if (host !== undefined) this.#probe(host);
      }
      return;
    }
    const timer = setTimeout(() => {
      lane.side.delete(timer);
      this.#insertRetry(lane, next);
      this.#pump(lane);
    }, delay);
    lane.side.set(timer, next);
  }

  /** Reads a spilled lane's next events back from the store when its memory has room. */
  #refill(lane: Lane): void {
    const spill = lane.spill;
    if (
      spill === undefined || spill.reading || spill.paused || this.#backlog === undefined || this.#stopped
    ) return;
    if (lane.retired) return;
    // Full by its bytes (one large event) with few jobs: a read would stop at once and pump again, a loop
    // with no I/O that starved dev's event loop; the lane reads on when a job settles.
    if (spill.place === undefined || lane.jobs > this.#window / 2 || this.#full(lane)) return;
    this.#readBack(lane, spill);
  }

  /** Reads `lane`'s spilled events back (apart from {@linkcode Forwarder.#refill}, called at every pump: its
   * closures' context is made only when it reads). */
  #readBack(lane: Lane, spill: NonNullable<Lane["spill"]>): void {
    spill.reading = true;
    const ignoresBefore = spill.ignores;
    const target = lane.sample!;
    const lend = (size: number): Uint8Array => {
      if (size > SLAB_BYTES / 4) return new Uint8Array(size);
      let slab = lane.slab;
      if (slab === undefined || lane.slabUsed + size > slab.length) {
        lane.slab = slab = new Uint8Array(SLAB_BYTES);
        lane.slabUsed = 0;
      }
      const at = lane.slabUsed;
      lane.slabUsed = at + size;
      return slab.subarray(at, at + size);
    };
    const visit = (event: CapturedEvent) => {
      if (lane.ids.has(event.id) || lane.once.has(event.id)) return "pass" as const;
      const admitted = spill.admit(event);
      if (admitted === undefined) return "pass" as const;
      if (this.#full(lane)) return "stop" as const;
      const h = held(event, target, this.#options.prepare, lend);
      if (h !== undefined) event = h.event;
      this.#admitJob(lane, event, target, admitted.attempt, admitted.resumed, h?.request);
      if (event.id !== spill.pin) this.#options.onTake?.(event, target);
      // Counted when it was enqueued (or resumed); a read can come first: then it is counted now.
      if (spill.count > 0) spill.count--;
      else this.#pending++;
      this.#remember(lane, event.id);
      return "take" as const;
    };
    this.#backlog!.read(spill.place!, spill.endpoint, visit, spill.until).then((end) => {
      spill.reading = false;
      if (lane.spill !== spill || this.#stopped) return;
      if (end.stopped !== undefined) {
        spill.place = end.stopped;
        if (end.stopped.id !== spill.pin) {
          spill.pin = end.stopped.id;
          this.#options.onPin?.(spill.pin);
        }
      } else {
        spill.place = end.next;
        if (spill.until !== undefined || spill.ignores === ignoresBefore) {
          // Caught up: every event left in the store has been read; new ones stay in memory again.
          lane.spill = undefined;
          if (spill.count > 0) this.#done(spill.count);
        }
      }
      this.#pump(lane);
    }, (error) => {
      spill.reading = false;
      this.#options.onError?.(error);
      const timer = setTimeout(() => {
        this.#probeTimers.delete(timer);
        this.#pump(lane);
      }, 1000);
      this.#probeTimers.add(timer);
    });
  }

  #startSpill(lane: Lane, event: CapturedEvent, target: ForwardTarget): void {
    const spill: Spill = {
      pin: event.id,
      admit: (e) => {
        if (e.endpoint !== target.endpoint || e.forward === undefined) return undefined;
        if (e.forward.targets !== undefined && !e.forward.targets.includes(target.name)) return undefined;
        if (spill.place?.id === "" && e.id < spill.pin) return undefined; // the place was not found
        return { attempt: 1, resumed: false };
      },
      count: 1,
      ignores: 1,
      reading: false,
      endpoint: target.endpoint ?? event.endpoint,
    };
    lane.spill = spill;
    this.#options.onPin?.(event.id);
    this.#backlog!.locate(event.id).then((place) => {
      if (lane.spill !== spill) return;
      spill.place = place ?? { offset: 0, id: "" };
      this.#pump(lane);
    }, (error) => this.#options.onError?.(error));
  }

  /** While lanes wait for `host` to listen: a connect about every `probeMs`; sends their events when it opens. */
  #probe(host: string): void {
    if (this.#probeMs <= 0 || this.#probing.has(host) || this.#stopped) return;
    this.#probing.add(host);
    const url = new URL(`http://${host}`);
    const hostname = url.hostname.replace(/^\[|\]$/g, "");
    const port = url.port === "" ? 80 : Number(url.port);
    const held = () => [...this.#lanes.values()].filter((lane) => lane.hold?.host === host);
    const tick = async () => {
      if (this.#stopped || held().length === 0) return void this.#probing.delete(host);
      let open = false;
      try {
        await this.#connect(hostname, port);
        open = true;
      } catch { /* still down */ }
      if (this.#stopped) return void this.#probing.delete(host);
      if (!open) { for (const lane of held()) lane.hold!.refusedSince = true; }
      if (open) {
        // A lane waiting after a closed connection goes early only when the app restarted meanwhile.
        for (const lane of held().filter((l) => !l.hold!.restart || l.hold!.refusedSince)) {
          if (lane.hold?.timer !== undefined) clearTimeout(lane.hold.timer);
          lane.hold = undefined;
          for (const job of lane.retries) job.early = true;
          this.#pump(lane);
        }
      }
      schedule();
    };
    const schedule = () => {
      const handle = setTimeout(() => {
        this.#probeTimers.delete(handle);
        tick();
      }, this.#probeMs);
      this.#probeTimers.add(handle);
    };
    schedule();
  }

  #dropWaiting(lane: Lane, each: (job: Job) => void): void {
    if (lane.hold?.timer !== undefined) clearTimeout(lane.hold.timer);
    lane.hold = undefined;
    for (const job of lane.queue.drain()) each(job);
    for (const job of lane.retries.splice(0)) each(job);
    for (const [timer, job] of lane.side) {
      clearTimeout(timer);
      each(job);
    }
    lane.side.clear();
  }

  enqueue(event: CapturedEvent, target: ForwardTarget, resume?: { attempt: number }): boolean {
    if (this.#stopped) return false;
    const lane = this.#laneOf(target);
    if (lane.once.has(event.id)) return true; // read back from the store before this call: taken
    this.#pending++;
    if (lane.spill !== undefined) {
      lane.spill.count++;
      lane.spill.ignores++;
      return false;
    }
    if (
      this.#backlog !== undefined && !resume && this.#full(lane) && (this.#options.spills?.(target) ?? true)
    ) {
      this.#startSpill(lane, event, target);
      return false;
    }
    this.#options.onTake?.(event, target);
    this.#remember(lane, event.id);
    this.#admitJob(lane, event, target, resume?.attempt ?? 1, resume !== undefined);
    this.#pump(lane);
    return true;
  }
  resumeFrom(
    target: ForwardTarget,
    from: Place,
    admit: Admit,
    o: { count: number; until?: number; key?: string },
  ): Resuming {
    const none: Resuming = { start() {}, skip() {} };
    if (this.#stopped || this.#backlog === undefined || o.count <= 0) return none;
    const lane = this.#laneOf(target, o.key);
    this.#pending += o.count;
    lane.serial = true;
    const spill: Spill = {
      place: from,
      pin: from.id,
      admit,
      count: o.count,
      ignores: 0,
      reading: false,
      paused: true,
      endpoint: target.endpoint ?? "",
      ...(o.until !== undefined ? { until: o.until } : {}),
    };
    lane.spill = spill;
    this.#options.onPin?.(from.id);
    return {
      start: () => {
        spill.paused = false;
        this.#pump(lane);
      },
      skip: (next: Place, take: Admit) => {
        if (lane.spill !== spill) return;
        this.#done(o.count); // left in the store: the pin keeps the watermark before them
        spill.count -= o.count;
        spill.place = next;
        spill.admit = take;
        spill.paused = false;
        if (spill.until !== undefined) lane.spill = undefined; // a relay target's: nothing enqueued meanwhile
        this.#pump(lane);
      },
    };
  }
  async relay(
    event: CapturedEvent,
    target: ForwardTarget,
    left?: AbortSignal,
    stopped?: AbortSignal,
  ): Promise<Response> {
    this.#pending++;
    let outcome: AttemptOutcome;
    this.#relaying++;
    const lease = this.#relayBudget.lease();
    const run = (async () => {
      try {
        const o = await this.#attempt(
          { event, target, seq: 0, attempt: 1, counted: 0, size: 0 },
          RELAY_BODY_MAX,
          lease,
        );
        noteSender(o, left?.aborted === true, stopped?.aborted === true);
        await this.#record(o.record, event);
        return o;
      } finally {
        this.#relaying--; // before `run` settles: a stop waiting for it sees it done
      }
    })();
    this.#relays.add(run);
    try {
      outcome = await run;
    } catch (error) {
      lease.release(); // no answer to hold
      throw error;
    } finally {
      this.#relays.delete(run);
      this.#options.onSettled?.(event, target);
      this.#done();
    }
    try {
      const onStalled = this.#options.onSenderStalled;
      return relayAnswer(event, outcome, lease, {
        ms: target.timeoutMs,
        ...(onStalled ? { onStalled: (stalled: StalledWrite) => onStalled(event, target, stalled) } : {}),
      });
    } catch (error) {
      lease.release();
      throw error;
    }
  }
  get pending(): number {
    return this.#pending;
  }
  get inMemory(): number {
    return this.#inMemory;
  }
  get inFlight(): number {
    return this.#inFlight.size;
  }
  get relaying(): number {
    return this.#relaying;
  }
  get pendingTargets(): number {
    if (this.#stoppedTargets !== undefined) return this.#stoppedTargets;
    let n = 0;
    for (const lane of this.#lanes.values()) if (_waitingIn(lane) > 0) n++;
    return n;
  }
  retire(
    retired: (target: ForwardTarget) => boolean,
    inStore?: Map<string, number>,
  ): Map<string, Set<string>> {
    const dropped = new Map<string, Set<string>>();
    for (const [key, lane] of this.#lanes) {
      const target = lane.sample;
      if (target === undefined || !retired(target)) continue;
      this.#lanes.delete(key);
      lane.retired = dropped;
      this.#dropWaiting(lane, (job) => this.#abandon(lane, job));
      if (lane.spill !== undefined) {
        inStore?.set(retiredKey(target), (inStore.get(retiredKey(target)) ?? 0) + lane.spill.count);
        this.#done(lane.spill.count); // left in the store: the pinned watermark keeps them for the next start
        lane.spill = undefined;
      }
    }
    return dropped;
  }
  idle(): Promise<void> {
    if (this.#pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }
  async stop(graceMs = 3000): Promise<StopReport> {
    this.#stopped = true;
    for (const t of this.#probeTimers) clearTimeout(t);
    this.#probeTimers.clear();
    this.#stoppedTargets = this.pendingTargets; // what waits is dropped from memory now (kept in the store)
    for (const lane of this.#lanes.values()) {
      this.#dropWaiting(lane, (job) => this.#release(lane, job));
      lane.spill = undefined;
    }
    const running = [...this.#inFlight.values(), ...this.#relays];
    if (running.length > 0) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        Promise.allSettled(running),
        new Promise((resolve) => (timer = setTimeout(resolve, graceMs))),
      ]);
      clearTimeout(timer);
    }
    this.#backlog?.close(); // nothing is read back after a stop
    // A run leaves `#inFlight` (and `#relaying`) once its record is appended, before its promise settles.
    return { abandoned: this.#inFlight.size + this.#relaying, unrecorded: this.#unrecorded };
  }
}

/** Creates a forwarder. */
export function createForwarder(options: ForwarderOptions): Forwarder {
  const engine = new ForwarderEngine(options);
  return {
    enqueue: (event, target, resume) => engine.enqueue(event, target, resume),
    resumeFrom: (target, from, admit, o) => engine.resumeFrom(target, from, admit, o),
    relay: (event, target, left, stopped) => engine.relay(event, target, left, stopped),
    get pending() {
      return engine.pending;
    },
    get inMemory() {
      return engine.inMemory;
    },
    get inFlight() {
      return engine.inFlight;
    },
    get relaying() {
      return engine.relaying;
    },
    get pendingTargets() {
      return engine.pendingTargets;
    },
    retire: (retired, inStore) => engine.retire(retired, inStore),
    idle: () => engine.idle(),
    stop: (graceMs) => engine.stop(graceMs),
  };
}
