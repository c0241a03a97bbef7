/**
 * A resolved forward target and what is sent to it: the URL (the event's
 * query added when the target has none) and the headers (the stored ones in
 * order, minus hop-by-hop ones and `Host`). Pure.
 * @module
 */
import { expandTarget } from "../route/expand.ts";
import type { CapturedEvent } from "../event/record.ts";
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
  const n = name.toLowerCase();
  return HOP_BY_HOP.has(n) || n.startsWith("proxy-");
}

const parsed = new Map<string, URL>();

/**
 * The URL an event is delivered to: `to` with the route's parameters filled
 * in (`http://localhost:3000/:provider`), and the event's query when `to`
 * has none. Treat it as read-only: without a query to add it is shared.
 */
export function deliveryUrl(event: Pick<CapturedEvent, "query" | "params">, to: string): URL {
  if (event.params !== undefined) to = expandTarget(to, event.params);
  if (event.query === "" || to.includes("?")) {
    let url = parsed.get(to);
    if (url === undefined) {
      if (parsed.size > 64) parsed.clear();
      parsed.set(to, url = new URL(to));
    }
    return url;
  }
  const url = new URL(to);
  if (url.search === "" && !to.includes("?") && event.query !== "") url.search = `?${event.query}`;
  return url;
}
