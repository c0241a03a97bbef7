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
 * What a relayed request's sender got, from its relay attempt's record: the app's answer, or hooktap's `502`
 * (no answer; a status no HTTP answer has; a body over {@linkcode RELAY_BODY_MAX}). Mirrors ./relay_answer.ts.
 */
export function senderGot(record: Pick<DeliveryRecord, "status" | "bodySize">): string {
  if (record.status === undefined) return "the sender got hooktap's 502 (no answer)";
  if (record.status < 200 || record.status > 599) return "the sender got hooktap's 502 (not an HTTP status)";
  if ((record.bodySize ?? 0) > RELAY_BODY_MAX) {
    return `the sender got hooktap's 502 (a body over ${formatBytes(RELAY_BODY_MAX)})`;
  }
  return "passed on to the sender";
}

/** Why hooktap's 502 to a relayed request whose app gave no answer (`why`: the send's error). */
export function noAnswerRelayText(url: string, why: string): string {
  return `hooktap relayed this request to ${url} but got no answer: ${why}.`;
}

/** The body of hooktap's 502 to a relayed request: `why`, then where the event is stored. */
export function badGatewayBody(why: string, eventId: string): string {
  return `${why} The event is stored as ${eventId}.\n`;
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
