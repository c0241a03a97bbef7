/// <reference lib="dom" />
/**
 * The page's calls to the inspector's API: same origin, authorised by the
 * HttpOnly session cookie the printed link set (the page never sees the
 * token; the browser sends the cookie and the page's `Origin`).
 * @module
 */
import type { CapturedEvent } from "../../event/record.ts";
import type { DeliveryRecord } from "../../event/delivery.ts";
import type { EventSummary } from "../api/summary.ts";

import type { TargetOutcome } from "../../send/delivery_state.ts";

export type { CapturedEvent, DeliveryRecord, EventSummary, TargetOutcome };

/** `GET /api/events` */
export interface ListPage {
  events: EventSummary[];
  next: number | null;
  scanned: number;
  size: number;
}

/** `GET /api/events/:id` */
export interface EventDetail {
  event: CapturedEvent;
  delivery: string;
  attempts: DeliveryRecord[];
  /** A forwarded event: each forward target's outcome (`[]`: no rule matched). */
  targets?: TargetOutcome[];
  /** Sends to other URLs (`replay --to`): their own deliveries, never the forward state. */
  others?: TargetOutcome[];
}

/** `GET /api/info` */
export interface Info {
  endpoints: string[];
  resign: boolean;
  live: boolean;
}

/** An API call answered with an error status. */
export class ApiError extends Error {
  override name = "ApiError";
  constructor(message: string, readonly status: number) {
    super(message);
  }
}

async function _get<T>(path: string): Promise<T> {
  const response = await fetch(path, { headers: { accept: "application/json" } });
  const body = await response.json();
  if (!response.ok) throw new ApiError(body?.error ?? `HTTP ${response.status}`, response.status);
  return body as T;
}

export const getInfo = (): Promise<Info> => _get("/api/info");
export const getPage = (query: string): Promise<ListPage> => _get(`/api/events?${query}`);
export const getEvent = (id: string): Promise<EventDetail> => _get(`/api/events/${encodeURIComponent(id)}`);

/** `POST /api/events/:id/replay`; resolves to the answer or `{ error }`. */
export async function postReplay(
  id: string,
  request: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const response = await fetch(`/api/events/${encodeURIComponent(id)}/replay`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(request),
  });
  return await response.json();
}
