/**
 * Shopify's facts (pure data: src/providers/facts.ts).
 * @module
 */
import type { ProviderMeta } from "../facts.ts";

/** Shopify's facts. */
export const meta: ProviderMeta = {
  name: "shopify",
  aliases: [],
  title: "Shopify",
  short: "Shopify",
  timestamped: false,
  resigns: true,
  signatureHeaders: ["x-shopify-hmac-sha256"],
  triggerable: true,
};
