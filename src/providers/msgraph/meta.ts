/**
 * Microsoft Graph's facts (pure data: src/providers/facts.ts).
 * @module
 */
import type { ProviderMeta } from "../facts.ts";

/** Microsoft Graph's facts. */
export const meta: ProviderMeta = {
  name: "msgraph",
  aliases: ["microsoft-graph", "graph"],
  title: "Microsoft Graph",
  short: "Microsoft Graph",
  timestamped: false,
  resigns: false,
  signatureHeaders: [],
  triggerable: true,
};
