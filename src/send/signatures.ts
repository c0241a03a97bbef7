/**
 * Webhook signature schemes that sign a timestamp along with the body, and
 * reject deliveries older than a tolerance (usually 5 minutes). A replay
 * sends the original signature unchanged: it still verifies for body-only
 * schemes (GitHub, Shopify) but is refused by these once the event is old.
 * `staleSignatureWarning` says so before sending. Pure.
 * @module
 */
import { type CapturedEvent, headerValue } from "../event/record.ts";
import { TIMESTAMP_HEADERS } from "../providers/signing.ts";

/** The tolerance most receivers use for timestamped signatures. */
export const SIGNATURE_TOLERANCE_MS = 5 * 60 * 1000;

/**
 * A warning when `event` carries a timestamped signature older than the
 * usual tolerance, or `undefined`.
 */
export function staleSignatureWarning(event: CapturedEvent, now: Date = new Date()): string | undefined {
  for (const scheme of TIMESTAMP_HEADERS) {
    const value = headerValue(event.headers, scheme.header);
    const signedAt = value === undefined ? undefined : scheme.read(value);
    if (signedAt === undefined) continue;
    const age = now.getTime() - signedAt;
    if (age <= SIGNATURE_TOLERANCE_MS) return undefined;
    const minutes = Math.round(age / 60_000);
    const span = minutes < 120 ? `${minutes} minutes` : `${Math.round(minutes / 60)} hours`;
    return `this event carries a ${scheme.label} signature made ${span} ago; receivers that enforce the ` +
      `usual 5-minute tolerance will reject the replay. Send a fresh event from ${scheme.label}, ` +
      `or relax the tolerance in development.`;
  }
  return undefined;
}
