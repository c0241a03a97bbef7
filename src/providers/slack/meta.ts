/**
 * Slack's facts (pure data: src/providers/facts.ts).
 * @module
 */
import type { ProviderMeta } from "../facts.ts";

/** Slack's facts. */
export const meta: ProviderMeta = {
  name: "slack",
  aliases: [],
  title: "Slack",
  short: "Slack",
  timestamped: true,
  resigns: true,
  signedTimestamp: { header: "X-Slack-Request-Timestamp", read: "seconds" },
  answerWithinMs: 3000,
  signatureHeaders: ["x-slack-signature"],
  triggerable: true,
};
