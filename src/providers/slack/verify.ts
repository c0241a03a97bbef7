/**
 * Slack: `X-Slack-Signature: v0=<hex HMAC-SHA256(signing secret,
 * "v0:<X-Slack-Request-Timestamp>:<body>")>`, tolerance 5 minutes. The
 * `url_verification` challenge is answered with `{"challenge": ...}`.
 * @module
 */
import { resignV0, type V0Names, verifyV0 } from "../_v0.ts";
import type { Provider, RequestView } from "../types.ts";
import { jsonString } from "../view.ts";

const SCHEME = "slack-v0";
const NAMES: V0Names = {
  scheme: SCHEME,
  signature: "X-Slack-Signature",
  timestamp: "X-Slack-Request-Timestamp",
  secretName: "signing secret",
};

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
  verify: (view, settings) => verifyV0(view, settings, NAMES),
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
  resign: (request, settings, now) => resignV0(request, settings, now, NAMES),
};

/** This folder's provider, for the index (src/providers/index.ts). */
export const provider: Provider = slack;
