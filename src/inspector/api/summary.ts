/**
 * One row of the inspector's list: the fields the list shows, without the
 * body or headers. Pure.
 * @module
 */
import { type CapturedEvent, headerValue } from "../../event/record.ts";
import type { DeliveryState } from "../../query/filter.ts";

/** What the list shows of an event. */
export interface EventSummary {
  id: string;
  endpoint: string;
  receivedAt: string;
  method: string;
  path: string;
  query: string;
  provider?: string;
  type?: string;
  /** Verdict status, when the event has one. */
  verdict?: string;
  delivery: DeliveryState;
  size: number;
  contentType?: string;
  /** The hub's sequence number, when it came through a hub. */
  hub?: number;
}

/** The summary of an event. */
export function summarize(event: CapturedEvent, delivery: DeliveryState): EventSummary {
  const s: EventSummary = {
    id: event.id,
    endpoint: event.endpoint,
    receivedAt: event.receivedAt,
    method: event.method,
    path: event.path,
    query: event.query,
    delivery,
    size: event.bodySize,
  };
  if (event.provider !== undefined) s.provider = event.provider;
  if (event.type !== undefined) s.type = event.type;
  if (event.verdict !== undefined) s.verdict = event.verdict.status;
  const type = headerValue(event.headers, "content-type");
  if (type !== undefined) s.contentType = type;
  if (event.hub !== undefined) s.hub = event.hub.seq;
  return s;
}
