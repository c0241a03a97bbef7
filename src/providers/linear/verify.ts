/**
 * Linear: `Linear-Signature: <hex HMAC-SHA256(secret, body)>`; event in
 * `Linear-Event` and the body's `action` (`Issue.create`). The body's own
 * `webhookTimestamp` is not checked (a replay cannot change it without
 * changing the body).
 * @module
 */
import { checkHmac, malformed, noSecret, unsigned } from "../_verdict.ts";
import { fromHex, hmac, toHex } from "../hmac.ts";
import type { Provider } from "../types.ts";
import { jsonString } from "../view.ts";

const SCHEME = "linear-sha256";

/** The Linear provider. */
export const linear: Provider = {
  name: "linear",
  title: "Linear",
  signatureHeaders: ["linear-signature"],
  timestamped: false,
  detect: (view) =>
    view.header("linear-signature") !== undefined || view.header("linear-event") !== undefined,
  eventType: (view) => {
    const event = view.header("linear-event") ?? jsonString(view, "type");
    const action = jsonString(view, "action");
    return event === undefined ? undefined : action === undefined ? event : `${event}.${action}`;
  },
  verify(view, settings) {
    const header = view.header("linear-signature");
    if (header === undefined) return unsigned(SCHEME, "Linear-Signature header");
    if (settings.secrets.length === 0) return noSecret(SCHEME);
    const sig = fromHex(header);
    if (sig === undefined) return malformed(SCHEME, "expected a hex digest");
    return checkHmac(SCHEME, view, settings, [sig], (body, secret) => hmac("sha256", secret, body));
  },
  resign(request, settings) {
    return [
      ...request.headers.filter(([k]) => k.toLowerCase() !== "linear-signature"),
      ["Linear-Signature", toHex(hmac("sha256", settings.secrets[0]!, request.body))],
    ];
  },
};

/** This folder's provider, for the index (src/providers/index.ts). */
export const provider: Provider = linear;
