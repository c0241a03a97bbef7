/**
 * The ports the receiver writes and forwards through, defined below all
 * sides: the store implements {@linkcode EventSink}, send/'s forwarder
 * implements {@linkcode Forwarding}, the config resolves to
 * {@linkcode ResolvedForward} (and {@linkcode Retention}, which the store
 * applies); the receiver knows only these. Types only, nothing runs here (a
 * leaf: it imports types of leaves).
 * @module
 */
import type { CapturedEvent } from "./event/record.ts";
import type { EventFilter } from "./query/event_filter.ts";

/** Where the receiver puts events; `append` resolves once the event is durable. */
export interface EventSink {
  /** Stores one event; resolves once it is durable. */
  append(event: CapturedEvent): Promise<void>;
}

/**
 * A forward target's `when` resolved: one `EventFilter` per alternative of each
 * key; an event matches when, for every key, one of its filters matches.
 */
export type ResolvedWhen = readonly (readonly EventFilter[])[];

/** `forward` resolved: every default filled. */
export interface ResolvedForward {
  /** Unique in its endpoint: the configured `name`, or derived from `to`. */
  readonly name: string;
  /** Which events it takes; absent: every event. */
  readonly when?: ResolvedWhen;
  /** Target URL as configured (`:name` parameters are filled per event). */
  readonly to: string;
  /** `queue`: answer the sender at once and deliver after; `relay`: answer with the app's own answer. */
  readonly mode: "queue" | "relay";
  /** Longest wait for the app's answer, in milliseconds. */
  readonly timeoutMs: number;
  /** Deliveries in flight at once to this target while the app keeps up. */
  readonly concurrency: number;
  /** `arrival`: events that wait go one at a time in arrival order; `parallel`: they may pass each other. */
  readonly order: "arrival" | "parallel";
  /** Attempts in all, the first included (1: never retry). */
  readonly attempts: number;
  /** Waits between attempts, in milliseconds; the last repeats. */
  readonly backoffMs: readonly number[];
  /** Accept any TLS certificate (a local self-signed one). */
  readonly insecure: boolean;
  /** Path of a CA file to read at start. */
  readonly caFile?: string;
}

/**
 * What `hooktap dev` keeps: the config's `retention` after validation
 * (src/config/retention.ts), applied by the store (src/store/write/retention.ts).
 */
export interface Retention {
  /** Keep only the newest N events. */
  readonly keep?: number;
  /** Age in milliseconds. */
  readonly olderThanMs?: number;
}

/**
 * Where one delivery goes: the unit of sending is one event to one named
 * target. An endpoint's forward target is named after its URL
 * (`targetNameOf`, src/event/delivery.ts); so is a `--to URL` given to `replay`.
 */
export interface SendTarget {
  /** Unique in its endpoint; recorded in every delivery record. */
  readonly name: string;
  /** URL as configured (`:name` parameters are filled per event). */
  readonly to: string;
}

/** Where one endpoint's events go, every default filled: the config's target with its CA file read. */
export interface ForwardTarget extends Omit<ResolvedForward, "caFile">, SendTarget {
  /** PEM text of an extra CA to trust, read from the configured file. */
  readonly ca?: string;
  /** The endpoint whose target it is (a lane per endpoint and target). */
  readonly endpoint?: string;
}

/** What the receiver hands events to for forwarding (src/send/forwarder.ts implements it). */
export interface Forwarding {
  /**
   * Queue mode: delivers `event` in the background, retrying as the target allows. Returns whether it
   * entered memory now; `false` when it waits in the store (or the forwarder stopped).
   */
  enqueue(event: CapturedEvent, target: ForwardTarget, resume?: { attempt: number }): boolean;
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
}
