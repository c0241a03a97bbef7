/**
 * Deliveries as the tools show them: every attempt of an event per target
 * with the app's answer, and a one-word state per target for summaries.
 * Read from the deliveries log through the send engine's reader (one narrow
 * call, {@linkcode readDeliveryRecords}).
 * @module
 */
import { z } from "zod";
import type { DeliveryRecord } from "../event/delivery.ts";
import { type CapturedEvent, markedTargets } from "../event/record.ts";
import { deliveriesByEvent, readDeliveries } from "../send/deliveries_read.ts";
import type { StorePaths } from "../store/paths.ts";
import { headerList, HEADERS_SCHEMA } from "./_headers.ts";

/** Every delivery record of the store, by event id. */
export async function readDeliveryRecords(paths: StorePaths): Promise<Map<string, DeliveryRecord[]>> {
  return deliveriesByEvent(await readDeliveries(paths.deliveries));
}

/** One attempt, as a tool shows it. */
export const ATTEMPT_SCHEMA = z.object({
  id: z.string(),
  source: z.enum(["forward", "relay", "replay"]).describe("dev's forwarder (queue or relay) or a replay"),
  attempt: z.number().int(),
  startedAt: z.string(),
  method: z.string(),
  url: z.string(),
  outcome: z.enum(["delivered", "retrying", "failed"]),
  durationMs: z.number(),
  status: z.number().int().optional().describe("the app's status, when it answered"),
  statusText: z.string().optional(),
  headers: HEADERS_SCHEMA.optional().describe("the app's answer headers, in order"),
  body: z.string().optional().describe(
    "the start of the app's answer body (base64 when bodyEncoding says so)",
  ),
  bodyEncoding: z.enum(["utf8", "base64"]).optional(),
  bodySize: z.number().int().optional(),
  truncated: z.boolean().optional(),
  error: z.string().optional().describe("why there was no answer"),
  resigned: z.boolean().optional(),
});

/** The deliveries of an event to one target. */
export const TARGET_DELIVERIES_SCHEMA = z.object({
  target: z.string().describe("the target's name, as dev and logs show it"),
  state: z.enum(["pending", "delivered", "retrying", "failed"]),
  attempts: z.array(ATTEMPT_SCHEMA),
});

/** A target's state in a summary. */
export const TARGET_STATE_SCHEMA = z.object({
  target: z.string(),
  state: z.enum(["pending", "delivered", "retrying", "failed"]),
  status: z.number().int().optional().describe("the last answer's status"),
  attempts: z.number().int(),
});

type Attempt = z.infer<typeof ATTEMPT_SCHEMA>;
type State = z.infer<typeof TARGET_STATE_SCHEMA>["state"];

function _attempt(d: DeliveryRecord): Attempt {
  const a: Attempt = {
    id: d.id,
    source: d.source,
    attempt: d.attempt,
    startedAt: d.startedAt,
    method: d.method,
    url: d.url,
    outcome: d.outcome,
    durationMs: d.durationMs,
  };
  if (d.status !== undefined) a.status = d.status;
  if (d.statusText !== undefined) a.statusText = d.statusText;
  if (d.headers !== undefined) a.headers = headerList(d.headers);
  if (d.body !== undefined) a.body = d.body;
  if (d.bodyEncoding !== undefined) a.bodyEncoding = d.bodyEncoding;
  if (d.bodySize !== undefined) a.bodySize = d.bodySize;
  if (d.truncated !== undefined) a.truncated = d.truncated;
  if (d.error !== undefined) a.error = d.error;
  if (d.resigned !== undefined) a.resigned = d.resigned;
  return a;
}

/** The targets of `event` (its forward mark's, then any other it was sent to) with their attempts. */
export function deliveriesOf(
  event: CapturedEvent,
  records: readonly DeliveryRecord[] | undefined,
): z.infer<typeof TARGET_DELIVERIES_SCHEMA>[] {
  const by = new Map<string, DeliveryRecord[]>();
  for (const name of event.forward === undefined ? [] : markedTargets(event.forward)) by.set(name, []);
  for (const d of records ?? []) {
    const list = by.get(d.target) ?? [];
    list.push(d);
    by.set(d.target, list);
  }
  return [...by].map(([target, list]) => {
    const last = list.at(-1);
    const delivered = list.some((d) => d.outcome === "delivered");
    const state: State = delivered ? "delivered" : last === undefined ? "pending" : last.outcome;
    return { target, state, attempts: list.map(_attempt) };
  });
}

/** Each target's state, for a summary. */
export function targetStates(
  event: CapturedEvent,
  records: readonly DeliveryRecord[] | undefined,
): z.infer<typeof TARGET_STATE_SCHEMA>[] {
  return deliveriesOf(event, records).map((t) => {
    const last = t.attempts.at(-1);
    return {
      target: t.target,
      state: t.state,
      ...(last?.status !== undefined ? { status: last.status } : {}),
      attempts: t.attempts.length,
    };
  });
}
