/**
 * Deliveries as the tools show them: every attempt of an event per target
 * with the app's answer, and a one-word state per target for summaries.
 * Read from the deliveries log through the send engine's reader (one narrow
 * call, {@linkcode readDeliveryRecords}).
 * @module
 */
import { senderStatus } from "../send/answer_note.ts";
import { z } from "zod";
import type { DeliveryRecord } from "../event/delivery.ts";
import type { CapturedEvent } from "../event/record.ts";
import { readDeliveriesOf } from "../send/deliveries_read.ts";
import { eventDelivery, isForwardRecord } from "../send/delivery_state.ts";
import type { StorePaths } from "../store/paths.ts";
import { headerList, HEADERS_SCHEMA } from "./_headers.ts";

/** The delivery records of `events`, by event id (only theirs are read: ../send/deliveries_read.ts). */
export function readDeliveryRecords(
  paths: StorePaths,
  events: readonly CapturedEvent[],
): Promise<Map<string, DeliveryRecord[]>> {
  return readDeliveriesOf(paths.deliveries, events);
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
  decodedFrom: z.string().optional().describe(
    "the answer came compressed with this Content-Encoding (gzip, deflate, br): body is its decoded start",
  ),
  senderStatus: z.number().int().optional().describe(
    "relay only: the status hooktap answered the sender with instead of the app's (502 no answer, over " +
      "64 MiB, or dev stopped before the answer; 503 relayed answers in memory at hooktap's bound); absent " +
      "when the app's answer was passed on",
  ),
  senderLeft: z.boolean().optional().describe(
    "relay only: the sender hung up before the app answered, so the answer reached no one",
  ),
  error: z.string().optional().describe("why there was no answer"),
  resigned: z.boolean().optional(),
  refused: z.boolean().optional().describe(
    "nothing listened (connection refused): no attempt spent, not counted; the event waits for the app",
  ),
});

/** The deliveries of an event to one target. */
export const TARGET_DELIVERIES_SCHEMA = z.object({
  target: z.string().describe("the target's name, as dev and logs show it"),
  kind: z.enum(["forward", "other"]).describe(
    "forward: a forward target of the endpoint (its state is the event's delivery state); other: a URL the " +
      "event was replayed to (replay `to`), which never changes the forward state",
  ),
  state: z.enum(["pending", "delivered", "retrying", "failed"]),
  attempts: z.array(ATTEMPT_SCHEMA),
});

/** A target's state in a summary. */
export const TARGET_STATE_SCHEMA = z.object({
  target: z.string(),
  kind: z.enum(["forward", "other"]).describe(
    "forward: a forward target of the endpoint (its state is the event's delivery state); other: a URL the " +
      "event was replayed to (replay `to`), which never changes the forward state",
  ),
  state: z.enum(["pending", "delivered", "retrying", "failed"]),
  status: z.number().int().optional().describe("the last answer's status"),
  attempts: z.number().int(),
  replays: z.number().int().optional().describe("of the attempts, those sent by hand (replay), not retries"),
});

type Attempt = z.infer<typeof ATTEMPT_SCHEMA>;

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
  if (d.decodedFrom !== undefined) a.decodedFrom = d.decodedFrom;
  if (d.senderLeft === true) a.senderLeft = true;
  if (d.source === "relay" && d.status !== undefined) {
    const sent = senderStatus(d);
    if (sent !== undefined) a.senderStatus = sent;
  }
  if (d.error !== undefined) a.error = d.error;
  if (d.resigned !== undefined) a.resigned = d.resigned;
  if (d.refused === true) a.refused = true; // as `inspect`: "no attempt spent, waits for the app"
  return a;
}

/**
 * The targets of `event` (its forward mark's, then any other it was sent to) with their attempts and
 * states, as the one delivery-state model (src/send/delivery_state.ts) groups and judges them: a resend to
 * another URL is its own target, a try nothing listened to is no attempt, delivered stays delivered.
 */
export function deliveriesOf(
  event: CapturedEvent,
  records: readonly DeliveryRecord[] | undefined,
): z.infer<typeof TARGET_DELIVERIES_SCHEMA>[] {
  const all = records ?? [];
  const model = eventDelivery(event, all);
  const taken = new Set<DeliveryRecord>();
  const forward = model.targets.map((t) => {
    const mine = all.filter((r) => !taken.has(r) && isForwardRecord(event, t.name, r));
    for (const r of mine) taken.add(r);
    return { target: t.name, kind: "forward" as const, state: t.outcome, attempts: mine.map(_attempt) };
  });
  const others = model.others.map((t) => ({
    target: t.name,
    kind: "other" as const,
    state: t.outcome,
    attempts: all.filter((r) => !taken.has(r) && r.target === t.name).map(_attempt),
  }));
  return [...forward, ...others];
}

/**
 * Each target's state, for a summary: the model's (src/send/delivery_state.ts), the forward targets first,
 * then the URLs it was replayed to (`kind` tells which, as `logs --json` has `targets` and `others`).
 */
export function targetStates(
  event: CapturedEvent,
  records: readonly DeliveryRecord[] | undefined,
): z.infer<typeof TARGET_STATE_SCHEMA>[] {
  const model = eventDelivery(event, records ?? []);
  const kinds = [
    ...model.targets.map((t) => [t, "forward"] as const),
    ...model.others.map((t) => [t, "other"] as const),
  ];
  return kinds.map(([t, kind]) => ({
    target: t.name,
    kind,
    state: t.outcome,
    ...(t.status !== undefined ? { status: t.status } : {}),
    attempts: t.attempts,
    ...(t.replays !== undefined ? { replays: t.replays } : {}),
  }));
}
