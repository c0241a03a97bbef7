/**
 * Event ids: `evt_<YYYYMMDD>_<ULID>`, the UTC date of arrival and a ULID
 * from a monotonic factory, so that ids sort in arrival order.
 * @module
 */
import { monotonicFactory } from "ulid";

/** Pattern of a whole event id. */
export const EVENT_ID_PATTERN: RegExp = /^evt_\d{8}_[0-9A-HJKMNP-TV-Z]{26}$/;

/** Makes a new id for an event received at `date`. */
export type IdFactory = (date: Date) => string;

/** `YYYYMMDD` of a date, in UTC. */
export function utcDay(date: Date): string {
  const day = date.getUTCFullYear() * 10000 + (date.getUTCMonth() + 1) * 100 + date.getUTCDate();
  return String(day).padStart(8, "0");
}

/** A factory of strictly increasing event ids (within this process). */
export function createIdFactory(): IdFactory {
  const ulid = monotonicFactory();
  return (date) => `evt_${utcDay(date)}_${ulid(date.getTime())}`;
}
