/**
 * Telegram Bot API updates, with `X-Telegram-Bot-Api-Secret-Token` set to
 * the endpoint's secret (the `secret_token` given to setWebhook).
 * @module
 */
import { digits, digitString, unix } from "../_ids.ts";
import type { BuildContext, Draft, TriggerCatalog } from "../catalog_types.ts";

const FROM = { id: 111222333, is_bot: false, first_name: "Jenny", username: "jenny", language_code: "en" };
const CHAT = { id: 111222333, first_name: "Jenny", username: "jenny", type: "private" };

const EVENTS: Record<string, (c: BuildContext) => Record<string, unknown>> = {
  message: (c) => ({
    message_id: Number(c.id("telegram.message", () => String(digits(4)))),
    from: FROM,
    chat: CHAT,
    date: unix(c.now),
    text: "/start",
    entities: [{ offset: 0, length: 6, type: "bot_command" }],
  }),
  callback_query: (c) => ({
    id: digitString(19),
    from: FROM,
    message: {
      message_id: Number(c.id("telegram.message", () => String(digits(4)))),
      chat: CHAT,
      date: unix(c.now),
      text: "Approve?",
    },
    chat_instance: digitString(19),
    data: "approve",
  }),
};

function build(event: string, ctx: BuildContext): Draft {
  return {
    headers: [["Content-Type", "application/json"], ["X-Telegram-Bot-Api-Secret-Token", ""]],
    body: { kind: "json", value: { update_id: digits(9), [event]: EVENTS[event]!(ctx) } },
  };
}

/** Telegram's catalog. */
export const catalog: TriggerCatalog = {
  provider: "telegram",
  source: "hand-written",
  events: Object.keys(EVENTS),
  sequences: {},
  retries: [1, 2, 4, 8],
  retriesNote:
    "Telegram retries an unsuccessful update a reasonable number of times (no schedule documented)",
  build,
};
