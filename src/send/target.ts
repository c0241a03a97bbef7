/**
 * A resolved forward target and what is sent to it: the URL (the event's
 * query added when the target has none) and the headers (the stored ones in
 * order, minus hop-by-hop ones and `Host`). Pure.
 * @module
 */
import { deliveryUrl } from "../route/expand.ts";

/** The URL an event is delivered to (src/route/expand.ts owns it; the readers of deliveries need only that). */
export { deliveryUrl };
import type { ResolvedForward } from "../config/forward.ts";
export { targetNameOf } from "../event/delivery.ts";

/** Where one endpoint's events go, every default filled: the config's target with its CA file read. */
export interface ForwardTarget extends Omit<ResolvedForward, "caFile">, SendTarget {
  /** PEM text of an extra CA to trust, read from the configured file. */
  readonly ca?: string;
  /** The endpoint whose target it is (a lane per endpoint and target). */
  readonly endpoint?: string;
}

/**
 * Where one delivery goes: the unit of sending is one event to one named
 * target. An endpoint's forward target is named after its URL
 * ({@linkcode targetNameOf}); so is a `--to URL` given to `replay`.
 */
export interface SendTarget {
  /** Unique in its endpoint; recorded in every delivery record. */
  readonly name: string;
  /** URL as configured (`:name` parameters are filled per event). */
  readonly to: string;
}

const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "te",
  "trailer",
  "upgrade",
  "host",
]);

/** Whether a stored header is not forwarded (hop-by-hop, `Proxy-*`, `Host`). */
export function isHopHeader(name: string): boolean {
  // Every such name starts with c, h, k, p, t or u: most headers are told apart without lower-casing.
  const first = name.charCodeAt(0) | 0x20;
  if (first !== 99 && first !== 104 && first !== 107 && first !== 112 && first !== 116 && first !== 117) {
    return false;
  }
  const n = name.toLowerCase();
  return HOP_BY_HOP.has(n) || n.startsWith("proxy-");
}
