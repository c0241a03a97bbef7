/**
 * Telegram Bot API: `X-Telegram-Bot-Api-Secret-Token` equals the
 * `secret_token` given to `setWebhook` (compared in constant time). Event
 * type: the update's kind (`message`, `callback_query`).
 * @module
 */
import { noSecret, unsigned } from "../_verdict.ts";
import { safeEqualText } from "../hmac.ts";
import type { Provider } from "../types.ts";
import { isObject } from "../view.ts";

const SCHEME = "telegram-secret-token";
const HEADER = "x-telegram-bot-api-secret-token";

/** The Telegram provider. */
export const telegram: Provider = {
  name: "telegram",
  title: "Telegram",
  signatureHeaders: [HEADER],
  timestamped: false,
  detect: (view) => view.header(HEADER) !== undefined,
  eventType: (view) => {
    const body = view.json();
    return isObject(body) ? Object.keys(body).find((k) => k !== "update_id") : undefined;
  },
  verify(view, settings) {
    const token = view.header(HEADER);
    if (token === undefined) return unsigned(SCHEME, "X-Telegram-Bot-Api-Secret-Token header");
    if (settings.secrets.length === 0) return noSecret(SCHEME);
    const i = settings.secrets.findIndex((s) => safeEqualText(s, token));
    if (i >= 0) return { status: "valid", scheme: SCHEME };
    return {
      status: "invalid",
      scheme: SCHEME,
      reason:
        "the secret is wrong: the secret token differs from the endpoint's secret (the secret_token given to setWebhook)",
    };
  },
  resign(request, settings) {
    return [
      ...request.headers.filter(([k]) => k.toLowerCase() !== HEADER),
      ["X-Telegram-Bot-Api-Secret-Token", settings.secrets[0]!],
    ];
  },
};

/** This folder's provider, for the index (src/providers/index.ts). */
export const provider: Provider = telegram;
