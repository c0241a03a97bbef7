/**
 * The ports the receiver writes and forwards through, defined below both
 * sides: the store implements `EventSink` (src/event/sink.ts, below the
 * store), send/'s forwarder implements {@linkcode Forwarding} (here, above
 * the config whose targets it names and below send/). The receiver knows
 * only these. Interfaces only, nothing runs here.
 * @module
 */
import type { ResolvedForward } from "./config/forward.ts";
import type { CapturedEvent } from "./event/record.ts";

export type { EventSink } from "./event/sink.ts";

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
  /** Relay mode: one attempt; the app's answer, or a 502 saying why there was none. */
  relay(event: CapturedEvent, target: ForwardTarget): Promise<Response>;
}
