/**
 * Paddle's facts (pure data: src/providers/facts.ts).
 * @module
 */
import type { ProviderMeta } from "../facts.ts";

/** Paddle's facts. */
export const meta: ProviderMeta = {
  name: "paddle",
  aliases: [],
  title: "Paddle",
  short: "Paddle",
  timestamped: true,
  resigns: true,
  signedTimestamp: { header: "Paddle-Signature", read: { pattern: "(?:^|;)ts=(\\d+)" } },
  signatureHeaders: ["paddle-signature"],
  triggerable: true,
};
