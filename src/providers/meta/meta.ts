/**
 * Meta's facts (pure data: src/providers/facts.ts).
 * @module
 */
import type { ProviderMeta } from "../facts.ts";

/** Meta's facts. */
export const meta: ProviderMeta = {
  name: "meta",
  aliases: ["facebook", "whatsapp", "instagram"],
  title: "Meta",
  short: "Meta",
  timestamped: false,
  resigns: true,
  signatureHeaders: ["x-hub-signature-256", "x-hub-signature"],
  triggerable: true,
};
