/**
 * Unknown sender's facts (pure data: src/providers/facts.ts).
 * @module
 */
import type { ProviderMeta } from "../facts.ts";

/** Unknown sender's facts. */
export const meta: ProviderMeta = {
  name: "generic",
  aliases: [],
  title: "Unknown sender",
  short: "Unknown sender",
  timestamped: false,
  resigns: false,
  signatureHeaders: [],
  triggerable: false,
};
