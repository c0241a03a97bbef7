/**
 * What a delivery record keeps of the app's answer body when it is not the
 * bytes as sent (decoded from a `Content-Encoding`, cut at 64 KiB), in one
 * phrase that `inspect` and the inspector page both show. Pure: the page
 * bundles it.
 * @module
 */
import { type DeliveryRecord, RECORD_BODY_BYTES } from "../event/delivery.ts";
import { formatBytes } from "../text/format.ts";

/** The most of an app's answer body a relay passes on (held in memory); a longer one gets the sender a 502. */
export const RELAY_BODY_MAX = 64 * 1024 * 1024;

/**
 * The bound of the bytes of all relayed answers held in memory at once (./relay_budget.ts): an answer that
 * would pass it gets its sender hooktap's 503.
 */
export const RELAY_BYTES_IN_FLIGHT = 128 * 1024 * 1024;

/**
 * Why a relayed request's sender got hooktap's answer instead of the app's: `no answer`; `not an HTTP status`
 * (the app's body, with a 502); `over max` (a body over {@linkcode RELAY_BODY_MAX}); `busy` (the relayed
 * answers in flight would pass {@linkcode RELAY_BYTES_IN_FLIGHT}: a 503); `stopped` (dev stopped before the
 * app answered: a 502, src/receiver/handler.ts). `undefined`: the app's answer was passed on. From the relay
 * attempt's record; mirrors ./relay_answer.ts.
 */
export type RelayRefusal = "no answer" | "not an HTTP status" | "over max" | "busy" | "stopped";

/** What a relayed request's sender got besides the app's answer: hooktap's status, or nothing (`left`). */
export type SenderGot = number | "left";

/** `, the sender got hooktap's 503` (`, the sender had hung up`): said after the app's status of a target. */
export function sentPhrase(sent: SenderGot | undefined): string {
  return sent === undefined
    ? ""
    : sent === "left"
    ? ", the sender had hung up"
    : `, the sender got hooktap's ${sent}`;
}

/** What of a relay attempt's record tells what its sender got. */
export interface RelayFacts {
  status?: number | undefined;
  senderLeft?: true | undefined;
  bodySize?: number | undefined;
  senderStatus?: number | undefined;
}

/** See {@linkcode RelayRefusal}. Records written before `senderStatus` are told by their status and size. */
export function relayRefusal(record: RelayFacts): RelayRefusal | undefined {
  if (record.status === undefined) return "no answer";
  if (record.senderStatus === 503) return "busy";
  if (record.status < 200 || record.status > 599) return "not an HTTP status";
  if ((record.bodySize ?? 0) > RELAY_BODY_MAX) return "over max";
  // A 502 for an answer hooktap would have passed on: dev stopped before it came.
  if (record.senderStatus === 502) return "stopped";
  return undefined;
}

/** The status a relayed request's sender got from hooktap instead of the app's, or `undefined` (the app's). */
export function senderStatus(record: RelayFacts): number | undefined {
  if (record.senderLeft) return undefined;
  const refusal = relayRefusal(record);
  return refusal === undefined ? undefined : refusal === "busy" ? 503 : 502;
}

/**
 * What a relayed request's sender got, from its relay attempt's record: the app's answer, or hooktap's `502`
 * (no answer; a status no HTTP answer has; a body over {@linkcode RELAY_BODY_MAX}) or `503` (the relayed
 * answers in flight over {@linkcode RELAY_BYTES_IN_FLIGHT}). Mirrors ./relay_answer.ts.
 */
export function senderGot(record: RelayFacts): string {
  if (record.senderLeft) return "the sender had hung up before the answer: it reached no one";
  switch (relayRefusal(record)) {
    case "no answer":
      return "the sender got hooktap's 502 (no answer)";
    case "not an HTTP status":
      return "the sender got hooktap's 502 (not an HTTP status)";
    case "over max":
      return `the sender got hooktap's 502 (a body over ${formatBytes(RELAY_BODY_MAX)})`;
    case "busy":
      return `the sender got hooktap's 503 (relayed answers in memory over ${
        formatBytes(RELAY_BYTES_IN_FLIGHT)
      })`;
    case "stopped":
      return "the sender got hooktap's 502 (dev stopped before the answer came)";
    default:
      return "passed on to the sender";
  }
}

/**
 * The text of hooktap's 503 to a relayed request whose app answered while the relayed answers in flight were
 * at {@linkcode RELAY_BYTES_IN_FLIGHT}.
 */
export function busyRelayText(url: string, status: number): string {
  return `hooktap relayed this request to ${url}, which answered ${status}, but the answers hooktap was ` +
    `relaying at once already held ${formatBytes(RELAY_BYTES_IN_FLIGHT)} of memory, so this one was not ` +
    `passed on: send it again later.`;
}

/** Why hooktap's 502 to a relayed request whose app gave no answer (`why`: the send's error). */
export function noAnswerRelayText(url: string, why: string): string {
  return `hooktap relayed this request to ${url} but got no answer: ${why}.`;
}

/** The body of hooktap's 502 to a relayed request: `why`, then where the event is stored. */
export function badGatewayBody(why: string, eventId: string): string {
  return `${why} The event is stored as ${eventId}.\n`;
}

/** The text of hooktap's 502 to a relayed request whose app had not answered when dev stopped. */
export function stoppedRelayText(url: string): string {
  return `hooktap dev stopped before ${url} answered this relayed request.`;
}

/** The text of hooktap's 502 to a relayed request whose app answered with a body over {@linkcode RELAY_BODY_MAX}. */
export function overRelayText(url: string, status: number, bodySize: number): string {
  return `hooktap relayed this request to ${url}, which answered ${status} with a body of ` +
    `${formatBytes(bodySize)}: more than the ${formatBytes(RELAY_BODY_MAX)} hooktap relays.`;
}

/** The phrase, or `undefined` when the record keeps the whole body as sent. Not escaped: the caller does. */
export function answerNote(
  record: Pick<DeliveryRecord, "bodySize" | "truncated" | "decodedFrom">,
): string | undefined {
  const sent = formatBytes(record.bodySize ?? 0);
  const kept = formatBytes(RECORD_BODY_BYTES);
  if (record.decodedFrom !== undefined) {
    return record.truncated
      ? `(decoded from ${record.decodedFrom}, ${sent} as sent; only the start is kept, up to ${kept} decoded)`
      : `(decoded from ${record.decodedFrom}, ${sent} as sent)`;
  }
  return record.truncated ? `(cut: the first ${kept} of ${sent} are kept)` : undefined;
}
