/**
 * HMAC (configured)'s facts (pure data: src/providers/facts.ts).
 * @module
 */
import type { ProviderMeta } from "../facts.ts";

/** HMAC (configured)'s facts. */
export const meta: ProviderMeta = {
  name: "hmac",
  aliases: [],
  title: "HMAC (configured)",
  short: "generic HMAC",
  timestamped: false,
  resigns: true,
  signatureHeaders: [],
  triggerable: true,
};
