/**
 * Delivery records for the readers' tests, as `dev` writes them, at a time of the test's choosing (each id
 * from a factory of its own: one factory's ids are monotonic, and these are made for times out of order).
 * @module
 */
import { DELIVERY_VERSION, type DeliveryRecord } from "../src/event/delivery.ts";
import { createIdFactory } from "../src/event/id.ts";

/** The time the fixtures count from. */
export const T0: number = Date.parse("2026-11-20T10:00:00.000Z");

/** `minutes` after {@linkcode T0}. */
export const at = (minutes: number): Date => new Date(T0 + minutes * 60_000);

/** An event id made `minutes` after T0. */
export const eventIdAt = (minutes: number): string => createIdFactory("evt")(at(minutes));

/**
 * A delivered attempt of `event` to target `app` that started `minutes` after T0, with `o` over it. Its
 * answer quotes `"outcome":"failed"`: escaped in the record, it must never read as the record's outcome.
 */
export function attempt(event: string, minutes: number, o: Partial<DeliveryRecord> = {}): DeliveryRecord {
  return {
    v: DELIVERY_VERSION,
    id: createIdFactory("dlv")(at(minutes)),
    event,
    endpoint: "github",
    source: "forward",
    target: "app",
    url: "http://127.0.0.1:3000/hook",
    method: "POST",
    attempt: 1,
    startedAt: at(minutes).toISOString(),
    durationMs: 2,
    outcome: "delivered",
    status: 200,
    statusText: "OK",
    headers: [["content-type", "application/json"]],
    body: '{"outcome":"failed"}',
    bodyEncoding: "utf8",
    bodySize: 20,
    ...o,
  };
}
