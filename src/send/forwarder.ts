/**
 * The forwarder: delivers stored events to their targets. One lane per
 * target (endpoint, name and URL) with bounded concurrency (`concurrency: 1` keeps arrival
 * order: a retry holds the lane). In queue mode failed attempts are retried
 * with backoff; every attempt is appended to the deliveries log. In relay
 * mode one attempt is made and its answer handed back for the sender.
 * @module
 */
import type { DeliveryRecord } from "../event/delivery.ts";
import type { CapturedEvent } from "../event/record.ts";
import type { DeliveriesLog } from "./deliveries_log.ts";
import { type AttemptOutcome, deliverOnce, type PreparedRequest } from "./deliver.ts";
import { nextDelay } from "./retry.ts";
import { type ForwardTarget, isHopHeader } from "./target.ts";

/** A change of a target's reachability, reported once per change. */
export interface AppState {
  /** `host:port` of the target. */
  host: string;
  up: boolean;
  /** Why it is down. */
  reason?: string;
}

/** Options of {@linkcode createForwarder}. */
export interface ForwarderOptions {
  /** Where attempts are recorded. */
  log: Pick<DeliveriesLog, "append" | "newId">;
  /**
   * Makes the request of an attempt (a re-signed copy when the signature's
   * tolerance has passed). `undefined` sends the stored request.
   * @default () => undefined
   */
  prepare?: (
    event: CapturedEvent,
    attempt: number,
    target: ForwardTarget,
  ) => PreparedRequest | undefined | Promise<PreparedRequest | undefined>;
  /** Called after each attempt is recorded. */
  onDelivery?: (record: DeliveryRecord) => void;
  /** Called when a target stops or starts answering. */
  onAppState?: (state: AppState) => void;
  /** Called when an event's forwarding to one target has settled (delivered, or given up). */
  onSettled?: (event: CapturedEvent, target: ForwardTarget) => void;
  /** Called when the deliveries log cannot be written. */
  onError?: (error: unknown) => void;
  /** Clock. @default () => new Date() */
  now?: () => Date;
  /**
   * How often to check, while events wait for a retry after getting no
   * answer, whether their target accepts connections again, in ms; 0: never.
   * @default 1000
   */
  probeMs?: number;
  /** The check: resolves when a TCP connection to `host:port` opens. @default Deno.connect, closed at once */
  connect?: (hostname: string, port: number) => Promise<void>;
}

/** Early attempts (started by the check) that got no answer and were not counted, at most, per event. */
export const MAX_FREE_ATTEMPTS = 30;

async function _connect(hostname: string, port: number): Promise<void> {
  const conn = await Deno.connect({ hostname, port });
  conn.close();
}

/** A running forwarder. */
export interface Forwarder {
  /** Queue mode: delivers `event` in the background, retrying as the target allows. */
  enqueue(event: CapturedEvent, target: ForwardTarget, resume?: { attempt: number }): void;
  /** Relay mode: one attempt; the app's answer, or a 502 saying why there was none. */
  relay(event: CapturedEvent, target: ForwardTarget): Promise<Response>;
  /** Events taken and not yet settled. */
  readonly pending: number;
  /** Resolves when nothing is pending. */
  idle(): Promise<void>;
  /**
   * A reload removed targets: drops the events queued or waiting for a retry
   * to the targets `retired` picks (they stay undelivered in the log, for the
   * next start's report and `replay --undelivered`; an attempt in flight
   * finishes and is recorded). Returns the ids dropped per target name.
   */
  retire(retired: (target: ForwardTarget) => boolean): Map<string, Set<string>>;
  /**
   * Stops taking new attempts (scheduled retries are dropped, to be found
   * undelivered at the next start) and waits up to `graceMs` for in-flight ones.
   */
  stop(graceMs?: number): Promise<void>;
}

interface Job {
  event: CapturedEvent;
  target: ForwardTarget;
  attempt: number;
  /** Sent again after a restart. */
  resumed?: boolean;
  /** Attempt number this run started at (retries count from it). */
  firstAttempt: number;
  /** This attempt was started early by the connect check. */
  early?: boolean;
  /** Early attempts that got no answer: they do not use up a retry. */
  free?: number;
}

interface Lane {
  /** Removed by a reload: its jobs are dropped, not retried. */
  retired?: Map<string, Set<string>>;
  /** Its target (the last job's). */
  sample?: ForwardTarget;
  running: number;
  /** Jobs waiting for a free slot, oldest first. */
  queue: Fifo<Job>;
  /** Retries waiting for their time, to be fired early when the target answers again. */
  timers: Map<
    ReturnType<typeof setTimeout>,
    { host: string; fire(early?: boolean): void; drop(): void; noAnswer: boolean }
  >;
}

const RELAY_BODY_MAX = 64 * 1024 * 1024;

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

/** Creates a forwarder. */
export function createForwarder(options: ForwarderOptions): Forwarder {
  const now = options.now ?? (() => new Date());
  const lanes = new Map<string, Lane>();
  const down = new Map<string, boolean>();
  const inFlight = new Set<Promise<unknown>>();
  let pending = 0;
  let stopped = false;
  let idleWaiters: (() => void)[] = [];

  const done = () => {
    pending--;
    if (pending === 0) {
      for (const w of idleWaiters) w();
      idleWaiters = [];
    }
  };
  const settle = (event: CapturedEvent, target: ForwardTarget) => {
    options.onSettled?.(event, target);
    done();
  };
  /** A job of a retired lane: not settled (it stays undelivered), no longer pending here. */
  const abandon = (lane: Lane, job: Job) => {
    const ids = lane.retired!.get(job.target.name) ?? new Set<string>();
    lane.retired!.set(job.target.name, ids.add(job.event.id));
    done();
  };

  const hosts = new Map<string, string>();
  const hostOf = (to: string) => {
    let host = hosts.get(to);
    if (host === undefined) hosts.set(to, host = new URL(to).host);
    return host;
  };

  const noteState = (target: ForwardTarget, outcome: AttemptOutcome) => {
    const host = hostOf(target.to);
    const isDown = outcome.error?.kind === "refused";
    const wasDown = down.get(host) ?? false;
    if (isDown === wasDown) return;
    down.set(host, isDown);
    options.onAppState?.(isDown ? { host, up: false, reason: outcome.error!.message } : { host, up: true });
    if (!isDown) {
      for (const lane of lanes.values()) {
        for (const [timer, waiting] of lane.timers) {
          if (waiting.host !== host) continue;
          clearTimeout(timer);
          lane.timers.delete(timer);
          waiting.fire();
        }
      }
    }
  };

  async function attempt(job: Job, maxBody?: number): Promise<AttemptOutcome> {
    const { event, target } = job;
    const prepared = options.prepare?.(event, job.attempt, target);
    const request = prepared instanceof Promise ? await prepared : prepared;
    const outcome = await deliverOnce(event, target, {
      id: options.log.newId(now()),
      source: target.mode === "relay" ? "relay" : "forward",
      attempt: job.attempt,
      ...(job.resumed ? { resumed: true } : {}),
      timeoutMs: target.timeoutMs,
      insecure: target.insecure,
      ...(target.ca !== undefined ? { ca: target.ca } : {}),
      ...(request !== undefined ? { request } : {}),
      ...(maxBody !== undefined ? { maxBody } : {}),
      now,
    });
    noteState(target, outcome);
    return outcome;
  }

  async function record(record: DeliveryRecord): Promise<void> {
    try {
      await options.log.append(record);
    } catch (error) {
      if (!stopped) options.onError?.(error); // after stop the log is closed: the next start redelivers
    }
    options.onDelivery?.(record);
  }

  /** One lane per target: an endpoint's targets each have their own queue and retries. */
  const keyOf = (target: ForwardTarget) => `${target.endpoint ?? ""}\n${target.name}\n${target.to}`;

  function laneOf(target: ForwardTarget): Lane {
    const key = keyOf(target);
    let lane = lanes.get(key);
    if (lane === undefined) {
      lane = { running: 0, queue: new Fifo(), timers: new Map() };
      lanes.set(key, lane);
    }
    return lane;
  }

  function push(lane: Lane, job: Job): void {
    if (lane.retired) return abandon(lane, job);
    lane.sample = job.target;
    lane.queue.push(job);
    pump(lane);
  }

  function pump(lane: Lane): void {
    while (!stopped && lane.queue.length > 0 && lane.running < (lane.queue.peek()!.target.concurrency || 1)) {
      const job = lane.queue.shift()!;
      lane.running++;
      const run = runJob(lane, job).finally(() => {
        inFlight.delete(run);
        lane.running--;
        pump(lane);
      });
      inFlight.add(run);
    }
  }

  async function runJob(lane: Lane, job: Job): Promise<void> {
    while (true) {
      const outcome = await attempt(job);
      // An attempt the connect check started that got no answer (a dev server still compiling) is free.
      if (job.early && outcome.response === undefined && (job.free ?? 0) < MAX_FREE_ATTEMPTS) {
        job = { ...job, free: (job.free ?? 0) + 1 };
      }
      const delay = nextDelay(
        job.target,
        job.attempt - job.firstAttempt + 1 - (job.free ?? 0),
        outcome.record,
        now().getTime(),
      );
      if (delay !== undefined) {
        outcome.record.outcome = "retrying";
        outcome.record.retryAt = new Date(now().getTime() + delay).toISOString();
      }
      await record(outcome.record);
      if (delay === undefined) return settle(job.event, job.target);
      if (stopped) return; // left for the next start
      if (lane.retired) return abandon(lane, job);
      const next: Job = { ...job, attempt: job.attempt + 1, early: false };
      const host = hostOf(job.target.to);
      const noAnswer = outcome.response === undefined;
      if (job.target.concurrency === 1) {
        // Arrival order: the lane waits with this event (woken early when the app is back).
        const early = await new Promise<boolean>((resolve) =>
          wait(lane, host, delay, noAnswer, (e) => resolve(e ?? false), () => resolve(false))
        );
        if (stopped) return;
        if (lane.retired) return abandon(lane, job);
        job = { ...next, early };
        continue;
      }
      wait(
        lane,
        host,
        delay,
        noAnswer,
        (early) => push(lane, { ...next, early: early ?? false }),
        () => lane.retired && abandon(lane, job),
      );
      return;
    }
  }

  /** Runs `fire` after `delay`, or sooner when `host` answers again; `drop` on stop. */
  function wait(
    lane: Lane,
    host: string,
    delay: number,
    noAnswer: boolean,
    fire: (early?: boolean) => void,
    drop: () => void,
  ): void {
    const timer = setTimeout(() => {
      lane.timers.delete(timer);
      fire();
    }, delay);
    lane.timers.set(timer, { host, fire, drop, noAnswer });
    if (noAnswer) probe(host);
  }

  const probing = new Set<string>();
  const probeTimers = new Set<ReturnType<typeof setTimeout>>();
  const probeMs = options.probeMs ?? 1000;
  const connect = options.connect ?? _connect;

  /** While events of `host` wait after getting no answer: a connect about every `probeMs`; sends them when it opens. */
  function probe(host: string): void {
    if (probeMs <= 0 || probing.has(host) || stopped) return;
    probing.add(host);
    const url = new URL(`http://${host}`);
    const hostname = url.hostname.replace(/^\[|\]$/g, "");
    const port = url.port === "" ? 80 : Number(url.port);
    const waiting = () => {
      const found: [Lane, ReturnType<typeof setTimeout>, { fire(early?: boolean): void }][] = [];
      for (const lane of lanes.values()) {
        for (const [timer, w] of lane.timers) if (w.host === host && w.noAnswer) found.push([lane, timer, w]);
      }
      return found;
    };
    const tick = async () => {
      if (stopped || waiting().length === 0) return void probing.delete(host);
      let open = false;
      try {
        await connect(hostname, port);
        open = true;
      } catch { /* still down */ }
      if (stopped) return void probing.delete(host);
      if (open) {
        for (const [lane, timer, w] of waiting()) {
          clearTimeout(timer);
          lane.timers.delete(timer);
          w.fire(true);
        }
      }
      schedule();
    };
    const schedule = () => {
      const handle = setTimeout(() => {
        probeTimers.delete(handle);
        tick();
      }, probeMs);
      probeTimers.add(handle);
    };
    schedule();
  }

  return {
    enqueue(event, target, resume) {
      if (stopped) return;
      pending++;
      const job: Job = resume
        ? { event, target, attempt: resume.attempt, firstAttempt: resume.attempt, resumed: true }
        : { event, target, attempt: 1, firstAttempt: 1 };
      push(laneOf(target), job);
    },
    async relay(event, target) {
      pending++;
      let outcome: AttemptOutcome;
      try {
        outcome = await attempt({ event, target, attempt: 1, firstAttempt: 1 }, RELAY_BODY_MAX);
        await record(outcome.record);
      } finally {
        settle(event, target);
      }
      const response = outcome.response;
      if (response === undefined) {
        const why = outcome.error?.message ?? "no answer";
        return new Response(
          `hooktap relayed this request to ${target.to} but got no answer: ${why}. ` +
            `The event is stored as ${event.id}.\n`,
          {
            status: 502,
            headers: { "content-type": "text/plain; charset=utf-8", "x-hooktap-event-id": event.id },
          },
        );
      }
      const headers = new Headers();
      for (const [name, value] of response.headers) {
        if (isHopHeader(name) || name.toLowerCase() === "content-length") continue;
        try {
          headers.append(name, value);
        } catch { /* a header Deno refuses to send back */ }
      }
      headers.set("x-hooktap-event-id", event.id);
      const nullBody = response.status === 204 || response.status === 304 || event.method === "HEAD";
      return new Response(nullBody ? null : response.body as Uint8Array<ArrayBuffer>, {
        status: response.status < 200 || response.status > 599 ? 502 : response.status,
        statusText: response.statusText,
        headers,
      });
    },
    get pending() {
      return pending;
    },
    retire(retired) {
      const dropped = new Map<string, Set<string>>();
      for (const [key, lane] of lanes) {
        const target = lane.queue.peek()?.target ?? lane.sample;
        if (target === undefined || !retired(target)) continue;
        lanes.delete(key);
        lane.retired = dropped;
        for (const job of lane.queue.drain()) abandon(lane, job);
        for (const [timer, waiting] of lane.timers) {
          clearTimeout(timer);
          waiting.drop();
        }
        lane.timers.clear();
      }
      return dropped;
    },
    idle() {
      if (pending === 0) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
    async stop(graceMs = 3000) {
      stopped = true;
      for (const t of probeTimers) clearTimeout(t);
      probeTimers.clear();
      for (const lane of lanes.values()) {
        for (const [timer, waiting] of lane.timers) {
          clearTimeout(timer);
          waiting.drop();
        }
        lane.timers.clear();
        lane.queue.drain();
      }
      if (inFlight.size === 0) return;
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        Promise.allSettled([...inFlight]),
        new Promise((resolve) => (timer = setTimeout(resolve, graceMs))),
      ]);
      clearTimeout(timer);
    },
  };
}
