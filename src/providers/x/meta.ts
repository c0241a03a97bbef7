/**
 * X (Twitter)'s facts (pure data: src/providers/facts.ts).
 * @module
 */
import type { ProviderMeta } from "../facts.ts";

/** X (Twitter)'s facts. */
export const meta: ProviderMeta = {
  name: "x",
  aliases: ["twitter"],
  title: "X (Twitter)",
  short: "X",
  timestamped: false,
  resigns: true,
  signatureHeaders: ["x-twitter-webhooks-signature"],
  triggerable: true,
};
