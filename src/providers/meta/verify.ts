/**
 * Meta (Facebook, Instagram, WhatsApp): `X-Hub-Signature-256:
 * sha256=<hex HMAC-SHA256(app secret, body)>` on a body with an `object`
 * field. The subscribe check (`GET ?hub.mode=subscribe&hub.verify_token=
 * ...&hub.challenge=...`) is answered with `hub.challenge` only when the
 * token equals the endpoint's `verifyToken`; otherwise 403.
 * @module
 */
import { checkHmac, malformed, noSecret, unsigned } from "../_verdict.ts";
import { fromHex, hmac, safeEqualText, toHex } from "../hmac.ts";
import type { Provider } from "../types.ts";
import { isObject, jsonString } from "../view.ts";

const SCHEME = "meta-sha256";

/** The Meta provider. */
export const meta: Provider = {
  name: "meta",
  title: "Meta",
  signatureHeaders: ["x-hub-signature-256", "x-hub-signature"],
  timestamped: false,
  detect: (view) =>
    (view.query.includes("hub.mode=") && view.params().has("hub.mode")) ||
    (view.header("x-hub-signature-256") !== undefined && view.header("x-github-event") === undefined &&
      jsonString(view, "object") !== undefined),
  eventType: (view) => {
    if (view.params().get("hub.mode") === "subscribe") return "subscribe";
    const object = jsonString(view, "object");
    const entry = (view.json() as { entry?: unknown[] } | undefined)?.entry?.[0];
    const change = isObject(entry) && Array.isArray(entry.changes) ? entry.changes[0] : undefined;
    const field = isObject(change) && typeof change.field === "string" ? change.field : undefined;
    return object === undefined ? undefined : field === undefined ? object : `${object} ${field}`;
  },
  verify(view, settings) {
    const header = view.header("x-hub-signature-256");
    if (header === undefined) return unsigned(SCHEME, "X-Hub-Signature-256 header");
    if (settings.secrets.length === 0) return noSecret(SCHEME, "app secret");
    const sig = header.startsWith("sha256=") ? fromHex(header.slice(7)) : undefined;
    if (sig === undefined) {
      return malformed(SCHEME, `expected "sha256=<hex digest>", got "${header.slice(0, 80)}"`);
    }
    return checkHmac(SCHEME, view, settings, [sig], (body, secret) => hmac("sha256", secret, body));
  },
  challenge(view, settings) {
    const params = view.params();
    if (params.get("hub.mode") !== "subscribe") return undefined;
    const token = params.get("hub.verify_token") ?? "";
    const challenge = params.get("hub.challenge") ?? "";
    if (settings.verifyToken === undefined || !safeEqualText(token, settings.verifyToken)) {
      return {
        status: 403,
        headers: [["content-type", "text/plain; charset=utf-8"]],
        body: settings.verifyToken === undefined
          ? "hub.verify_token cannot be checked: set verifyToken on this endpoint in hooktap.config.ts"
          : "hub.verify_token does not match this endpoint's verifyToken",
      };
    }
    return { status: 200, headers: [["content-type", "text/plain; charset=utf-8"]], body: challenge };
  },
  resign(request, settings) {
    return [
      ...request.headers.filter(([k]) => k.toLowerCase() !== "x-hub-signature-256"),
      ["X-Hub-Signature-256", `sha256=${toHex(hmac("sha256", settings.secrets[0]!, request.body))}`],
    ];
  },
};

/** This folder's provider, for the index (src/providers/index.ts). */
export const provider: Provider = meta;
