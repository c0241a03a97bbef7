/**
 * Delivery records for the readers' tests, as `dev` writes them, at a time of the test's choosing (each id
 * from a factory of its own: one factory's ids are monotonic, and these are made for times out of order).
 * @module
 */
import { DELIVERY_VERSION, type DeliveryRecord } from "../src/event/delivery.ts";
import { createIdFactory } from "../src/event/id.ts";
import { eachDelivery } from "../src/send/deliveries_read.ts";
import type { GivenUp } from "../src/send/undelivered.ts";

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

// The oracles the readers are held to: the whole log, read and judged the plain way.

/** Every record of the deliveries log at `path`, in file order. */
export async function allDeliveries(path: string): Promise<DeliveryRecord[]> {
  const out: DeliveryRecord[] = [];
  await eachDelivery(path, (record) => void out.push(record));
  return out;
}

/** The records grouped by event id, each group in file order. */
export function byEvent(records: readonly DeliveryRecord[]): Map<string, DeliveryRecord[]> {
  const map = new Map<string, DeliveryRecord[]>();
  for (const r of records) map.set(r.event, [...(map.get(r.event) ?? []), r]);
  return map;
}

/**
 * The (event, target) pairs with a failed attempt that was not a replay's and no delivered one, grouped by
 * endpoint and target.
 */
export function givenUpOf(records: readonly DeliveryRecord[]): GivenUp[] {
  const groups = new Map<string, GivenUp>();
  for (const d of records) {
    if (d.outcome !== "failed" || d.source === "replay") continue;
    const same = records.filter((r) => r.event === d.event && r.target === d.target);
    if (same.some((r) => r.outcome === "delivered")) continue;
    const key = `${d.endpoint} ${d.target}`;
    const g = groups.get(key) ?? { endpoint: d.endpoint, target: d.target, events: [] };
    groups.set(key, g);
    if (!g.events.includes(d.event)) g.events.push(d.event);
  }
  return [...groups.values()];
}
