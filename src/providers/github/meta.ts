/**
 * GitHub's facts (pure data: src/providers/facts.ts).
 * @module
 */
import type { ProviderMeta } from "../facts.ts";

/** GitHub's facts. */
export const meta: ProviderMeta = {
  name: "github",
  aliases: [],
  title: "GitHub",
  short: "GitHub",
  timestamped: false,
  resigns: true,
  signatureHeaders: ["x-hub-signature-256", "x-hub-signature"],
  triggerable: true,
  schema: true,
};
