/**
 * Twitch EventSub's facts (pure data: src/providers/facts.ts).
 * @module
 */
import type { ProviderMeta } from "../facts.ts";

/** Twitch EventSub's facts. */
export const meta: ProviderMeta = {
  name: "twitch",
  aliases: [],
  title: "Twitch EventSub",
  short: "Twitch",
  timestamped: true,
  resigns: true,
  signedTimestamp: { header: "Twitch-Eventsub-Message-Timestamp", read: "iso" },
  signatureHeaders: ["twitch-eventsub-message-signature"],
  triggerable: true,
};
