/**
 * Stripe's facts (pure data: src/providers/facts.ts).
 * @module
 */
import type { ProviderMeta } from "../facts.ts";

/** Stripe's facts. */
export const meta: ProviderMeta = {
  name: "stripe",
  aliases: [],
  title: "Stripe",
  short: "Stripe",
  timestamped: true,
  resigns: true,
  signedTimestamp: { header: "Stripe-Signature", read: { pattern: "(?:^|,)\\s*t=(\\d+)" } },
  signatureHeaders: ["stripe-signature"],
  triggerable: true,
};
