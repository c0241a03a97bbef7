/**
 * Several clients per channel (issue 28): client names and the list
 * `hooktap hub clients` shows. What a channel stores for them (cursors, the
 * dropped prefix, the usage counter, refusals) and retention's trim live in
 * src/hub/kv_store.ts, the one owner of the hub's KV keys.
 *
 * The stored events are always a suffix `low+1 … head` of the channel's
 * sequence: an event is dropped only once every event before it is, and
 * only when every client that has been seen within the retention acked it,
 * or it is older than the retention. A client away longer than the
 * retention pins nothing.
 * @module
 */
import type { ClientRecord } from "./kv_store.ts";

export type { ClientRecord, LowMark, Refused, Trimmed } from "./kv_store.ts";
export { storedBytes, usage } from "./kv_store.ts";

/** A client as listed. */
export interface ClientInfo {
  name: string;
  /** Last acknowledged sequence number. */
  acked: number;
  /** Last contact (poll or ack). */
  lastSeen: string;
  /** Events the hub still holds after its ack ({@linkcode waitingFor}). */
  waiting: number;
  /** Whether it still keeps events from being dropped (seen within the retention). */
  pinning: boolean;
}

/** A client's name: letters, digits, `.`, `_`, `@`, `-`, at most 64. */
export const CLIENT_NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

/**
 * What a client would get if it polled now: the events the hub still holds (after the `low` mark: the rest
 * were dropped) that it has not acked. The one count of waiting events, for the status and the list alike.
 */
export function waitingFor(head: number, acked: number, low: number): number {
  return Math.max(0, head - Math.max(acked, low));
}

/** The clients as listed by `hooktap hub clients`. */
export function clientInfos(
  clients: { name: string; record: ClientRecord }[],
  channel: { head: number; low: number },
  options: { now: number; retentionMs: number },
): ClientInfo[] {
  return clients.map(({ name, record }) => ({
    name,
    acked: record.seq,
    lastSeen: record.at,
    waiting: waitingFor(channel.head, record.seq, channel.low),
    pinning: options.now - Date.parse(record.at) <= options.retentionMs,
  }));
}
