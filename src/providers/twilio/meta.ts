/**
 * Twilio's facts (pure data: src/providers/facts.ts).
 * @module
 */
import type { ProviderMeta } from "../facts.ts";

/** Twilio's facts. */
export const meta: ProviderMeta = {
  name: "twilio",
  aliases: [],
  title: "Twilio",
  short: "Twilio",
  timestamped: false,
  resigns: true,
  signsUrl: true,
  signatureHeaders: ["x-twilio-signature"],
  triggerable: true,
};
