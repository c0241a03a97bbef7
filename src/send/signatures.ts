/**
 * Webhook signature schemes that sign a timestamp along with the body, and
 * reject deliveries older than a tolerance (usually 5 minutes). A replay
 * sends the original signature unchanged: it still verifies for body-only
 * schemes (GitHub, Shopify) but is refused by these once the event is old.
 * `staleSignatureWarning` says so before sending. Pure.
 * @module
 */
import { type CapturedEvent, headerValue } from "../event/record.ts";

/** The tolerance most receivers use for timestamped signatures. */
export const SIGNATURE_TOLERANCE_MS = 5 * 60 * 1000;

interface Scheme {
  name: string;
  /** The signed time in ms, when the event carries this scheme's headers. */
  signedAt(headers: readonly [string, string][]): number | undefined;
}

function _seconds(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value.trim()) * 1000;
}

const SCHEMES: Scheme[] = [
  { name: "Slack", signedAt: (h) => _seconds(headerValue(h, "x-slack-request-timestamp")) },
  {
    name: "Stripe",
    signedAt: (h) => _seconds(headerValue(h, "stripe-signature")?.match(/(?:^|,)\s*t=(\d+)/)?.[1]),
  },
  { name: "Standard Webhooks", signedAt: (h) => _seconds(headerValue(h, "webhook-timestamp")) },
  { name: "Svix", signedAt: (h) => _seconds(headerValue(h, "svix-timestamp")) },
];

/**
 * A warning when `event` carries a timestamped signature older than the
 * usual tolerance, or `undefined`.
 */
export function staleSignatureWarning(event: CapturedEvent, now: Date = new Date()): string | undefined {
  for (const scheme of SCHEMES) {
    const signedAt = scheme.signedAt(event.headers);
    if (signedAt === undefined) continue;
    const age = now.getTime() - signedAt;
    if (age <= SIGNATURE_TOLERANCE_MS) return undefined;
    const minutes = Math.round(age / 60_000);
    const span = minutes < 120 ? `${minutes} minutes` : `${Math.round(minutes / 60)} hours`;
    return `this event carries a ${scheme.name} signature made ${span} ago; receivers that enforce the ` +
      `usual 5-minute tolerance will reject the replay. Send a fresh event from ${scheme.name}, ` +
      `or relax the tolerance in development.`;
  }
  return undefined;
}
