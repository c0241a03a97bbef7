/**
 * A resolved forward target and what is sent to it: the URL (the event's
 * query added when the target has none) and the headers (the stored ones in
 * order, minus hop-by-hop ones and `Host`). Pure.
 * @module
 */
import { deliveryUrl } from "../route/expand.ts";

/** The URL an event is delivered to (src/route/expand.ts owns it; the readers of deliveries need only that). */
export { deliveryUrl };
export { targetNameOf } from "../event/delivery.ts";

export type { ForwardTarget, SendTarget } from "../ports.ts";

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
  // And is as long as one of them (connection, keep-alive 10; transfer-encoding 17; te 2; host 4; trailer,
  // upgrade 7), or is `Proxy-*`: content-type, for one, is not lower-cased.
  const size = name.length;
  if (first === 112) return size >= 6 && name.slice(0, 6).toLowerCase() === "proxy-";
  if (size !== 10 && size !== 17 && size !== 2 && size !== 4 && size !== 7) return false;
  return HOP_BY_HOP.has(name.toLowerCase());
}
