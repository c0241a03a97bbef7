/**
 * Telegram's facts (pure data: src/providers/facts.ts).
 * @module
 */
import type { ProviderMeta } from "../facts.ts";

/** Telegram's facts. */
export const meta: ProviderMeta = {
  name: "telegram",
  aliases: [],
  title: "Telegram",
  short: "Telegram",
  timestamped: false,
  resigns: true,
  signatureHeaders: ["x-telegram-bot-api-secret-token"],
  triggerable: true,
};
