/**
 * Zoom's facts (pure data: src/providers/facts.ts).
 * @module
 */
import type { ProviderMeta } from "../facts.ts";

/** Zoom's facts. */
export const meta: ProviderMeta = {
  name: "zoom",
  aliases: [],
  title: "Zoom",
  short: "Zoom",
  timestamped: true,
  resigns: true,
  signedTimestamp: { header: "x-zm-request-timestamp", read: "seconds" },
  answerWithinMs: 3000,
  signatureHeaders: ["x-zm-signature"],
  triggerable: true,
};
