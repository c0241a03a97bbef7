/**
 * Twitch EventSub: `Twitch-Eventsub-Message-Signature: sha256=<hex
 * HMAC-SHA256(secret, message id + timestamp + body)>`. The
 * `webhook_callback_verification` message is answered with its `challenge`
 * as `text/plain`, once the signature verifies (403 when it does not).
 * @module
 */
import { checkHmac, expired, fresh, malformed, noSecret, unsigned } from "../_verdict.ts";
import { fromHex, hmacParts, toHex } from "../hmac.ts";
import type { Provider, RequestView } from "../types.ts";
import { jsonString } from "../view.ts";

const SCHEME = "twitch-sha256";

function _seconds(ts: string): number | undefined {
  const ms = Date.parse(ts.replace(/(\.\d{3})\d+/, "$1"));
  return Number.isNaN(ms) ? undefined : ms / 1000;
}

const type = (view: RequestView) => view.header("twitch-eventsub-message-type");

/** The Twitch EventSub provider. */
export const twitch: Provider = {
  name: "twitch",
  title: "Twitch EventSub",
  signatureHeaders: ["twitch-eventsub-message-signature"],
  timestamped: true,
  detect: (view) =>
    type(view) !== undefined || view.header("twitch-eventsub-message-signature") !== undefined,
  eventType: (view) => {
    const sub = jsonString(view, "subscription", "type");
    const kind = type(view);
    return kind === "notification" ? sub : [kind, sub].filter(Boolean).join(" ") || undefined;
  },
  verify(view, settings) {
    const header = view.header("twitch-eventsub-message-signature");
    if (header === undefined) return unsigned(SCHEME, "Twitch-Eventsub-Message-Signature header");
    if (settings.secrets.length === 0) return noSecret(SCHEME);
    const id = view.header("twitch-eventsub-message-id");
    const ts = view.header("twitch-eventsub-message-timestamp");
    const at = ts === undefined ? undefined : _seconds(ts);
    if (id === undefined || ts === undefined || at === undefined) {
      return malformed(SCHEME, "Twitch-Eventsub-Message-Id or -Timestamp is missing");
    }
    const sig = header.startsWith("sha256=") ? fromHex(header.slice(7)) : undefined;
    if (sig === undefined) {
      return malformed(SCHEME, `expected "sha256=<hex digest>", got "${header.slice(0, 80)}"`);
    }
    const verdict = checkHmac(SCHEME, view, settings, [sig], (b, s) => hmacParts("sha256", s, [id, ts, b]));
    if (verdict.status === "valid" && !fresh(at, view.receivedAt, Math.max(settings.tolerance, 600))) {
      return expired(SCHEME, at, view.receivedAt, Math.max(settings.tolerance, 600));
    }
    return verdict;
  },
  async challenge(view, settings) {
    if (type(view) !== "webhook_callback_verification") return undefined;
    const challenge = jsonString(view, "challenge");
    if (challenge === undefined) return undefined;
    const verdict = await twitch.verify(view, settings);
    if (verdict.status === "invalid" || verdict.status === "unsigned") {
      return {
        status: 403,
        headers: [["content-type", "text/plain; charset=utf-8"]],
        body: `signature ${verdict.status}`,
      };
    }
    return { status: 200, headers: [["content-type", "text/plain"]], body: challenge };
  },
  resign(request, settings, now) {
    const get = (n: string) => request.headers.find(([k]) => k.toLowerCase() === n)?.[1];
    const id = get("twitch-eventsub-message-id") ?? crypto.randomUUID();
    const ts = now.toISOString();
    const sig = toHex(hmacParts("sha256", settings.secrets[0]!, [id, ts, request.body]));
    return [
      ...request.headers.filter(([k]) => !/^twitch-eventsub-message-(id|timestamp|signature)$/i.test(k)),
      ["Twitch-Eventsub-Message-Id", id],
      ["Twitch-Eventsub-Message-Timestamp", ts],
      ["Twitch-Eventsub-Message-Signature", `sha256=${sig}`],
    ];
  },
};

/** This folder's provider, for the index (src/providers/index.ts). */
export const provider: Provider = twitch;
