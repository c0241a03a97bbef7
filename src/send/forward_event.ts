/**
 * Forwarding one stored event from your own code (a test of your webhook
 * handler): the same faithful send `hooktap dev --forward-to` makes.
 * @module
 */
import type { DeliveryRecord } from "../event/delivery.ts";
import { createIdFactory } from "../event/id.ts";
import type { CapturedEvent } from "../event/record.ts";
import { deliverOnce } from "./deliver.ts";
import { targetNameOf } from "./target.ts";

/** Options of {@linkcode forwardEvent}. */
export interface ForwardEventOptions {
  /** Longest wait for the answer, in milliseconds. @default 30000 */
  timeoutMs?: number;
  /** Accept any TLS certificate (a local self-signed one). @default false */
  insecure?: boolean;
  /** PEM text of an extra CA to trust. */
  ca?: string;
  /** Cancels the send. */
  signal?: AbortSignal;
}

const ids = createIdFactory();

/**
 * Sends a stored event to `to` once, exactly as it arrived (method, body
 * bytes, headers in order with repeats and case, minus hop-by-hop ones and
 * `Host`; the original query added when `to` has none), and describes the
 * answer as a delivery record. Never throws for a network problem: the
 * record's `error` says why there was no answer. Nothing is written to disk.
 *
 * @example
 * ```ts
 * import { forwardEvent, parseEventLine } from "@hooktap/hooktap/testing";
 * const [line] = (await Deno.readTextFile(".hooktap/events.jsonl")).split("\n");
 * const event = parseEventLine(line ?? "");
 * if (event) {
 *   const result = await forwardEvent(event, "http://localhost:3000/webhooks/github");
 *   console.log(result.status ?? result.error, result.body);
 * }
 * ```
 */
export async function forwardEvent(
  event: CapturedEvent,
  to: string,
  options: ForwardEventOptions = {},
): Promise<DeliveryRecord> {
  const { record } = await deliverOnce(event, { name: targetNameOf(to), to }, {
    id: "dlv" + ids(new Date()).slice(3),
    source: "replay",
    attempt: 1,
    keepAlive: false, // nothing left open for a test's resource check
    ...options,
  });
  return record;
}
