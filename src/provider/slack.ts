/**
 * Slack: `X-Slack-Signature: v0=<hex HMAC-SHA256(signing secret,
 * "v0:<X-Slack-Request-Timestamp>:<body>")>`, tolerance 5 minutes. The
 * `url_verification` challenge is answered with `{"challenge": ...}`.
 * @module
 */
import { checkHmac, expired, fresh, malformed, noSecret, unsigned } from "./_verdict.ts";
import { fromHex, hmacParts, toHex } from "./hmac.ts";
import type { Provider, RequestView } from "./types.ts";
import { jsonString } from "./view.ts";

const SCHEME = "slack-v0";

function _formType(view: RequestView): string | undefined {
  if (!/x-www-form-urlencoded/i.test(view.header("content-type") ?? "")) return undefined;
  const form = new URLSearchParams(view.text());
  if (form.has("command")) return `slash_command ${form.get("command")}`;
  const payload = form.get("payload");
  if (payload === null) return undefined;
  try {
    const type = (JSON.parse(payload) as { type?: unknown }).type;
    return typeof type === "string" ? type : undefined;
  } catch {
    return undefined;
  }
}

/** The Slack provider. */
export const slack: Provider = {
  name: "slack",
  title: "Slack",
  signatureHeaders: ["x-slack-signature"],
  timestamped: true,
  detect: (view) =>
    view.header("x-slack-signature") !== undefined || view.header("x-slack-request-timestamp") !== undefined,
  eventType: (view) => {
    const type = jsonString(view, "type");
    if (type === "event_callback") {
      const inner = jsonString(view, "event", "type");
      return inner === undefined ? type : `${type} ${inner}`;
    }
    return type ?? _formType(view);
  },
  verify(view, settings) {
    const header = view.header("x-slack-signature");
    const ts = view.header("x-slack-request-timestamp");
    if (header === undefined) return unsigned(SCHEME, "X-Slack-Signature header");
    if (settings.secrets.length === 0) return noSecret(SCHEME, "signing secret");
    if (ts === undefined || !/^\d+$/.test(ts)) {
      return malformed(SCHEME, "X-Slack-Request-Timestamp is missing or not a unix time");
    }
    const sig = header.startsWith("v0=") ? fromHex(header.slice(3)) : undefined;
    if (sig === undefined) {
      return malformed(SCHEME, `expected "v0=<hex digest>", got "${header.slice(0, 80)}"`);
    }
    const verdict = checkHmac(
      SCHEME,
      view,
      settings,
      [sig],
      (b, s) => hmacParts("sha256", s, [`v0:${ts}:`, b]),
    );
    if (verdict.status === "valid" && !fresh(Number(ts), view.receivedAt, settings.tolerance)) {
      return expired(SCHEME, Number(ts), view.receivedAt, settings.tolerance);
    }
    return verdict;
  },
  challenge(view) {
    if (jsonString(view, "type") !== "url_verification") return undefined;
    const challenge = jsonString(view, "challenge");
    if (challenge === undefined) return undefined;
    return {
      status: 200,
      headers: [["content-type", "application/json"]],
      body: JSON.stringify({ challenge }),
    };
  },
  resign(request, settings, now) {
    const ts = String(Math.floor(now.getTime() / 1000));
    const sig = toHex(hmacParts("sha256", settings.secrets[0]!, [`v0:${ts}:`, request.body]));
    return [
      ...request.headers.filter(([k]) => !/^x-slack-(signature|request-timestamp)$/i.test(k)),
      ["X-Slack-Request-Timestamp", ts],
      ["X-Slack-Signature", `v0=${sig}`],
    ];
  },
};
