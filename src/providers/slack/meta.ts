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
  // Slack takes these answers as the reply: a slash command's message, a select menu's options, a modal's
  // response_action, a legacy message's replacement, a dialog's errors. Other interactivity needs only a 200.
  answeredByApp: [
    "slash_command",
    "block_suggestion",
    "view_submission",
    "interactive_message",
    "dialog_submission",
  ],
  answeredByAppLost: "your app's reply never reaches the user",
  signatureHeaders: ["x-slack-signature"],
  triggerable: true,
};
