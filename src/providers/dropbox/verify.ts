/**
 * Dropbox: the verification request (`GET ?challenge=...`) is echoed as
 * `text/plain` with `X-Content-Type-Options: nosniff`; notifications carry
 * `X-Dropbox-Signature: <hex HMAC-SHA256(app secret, body)>`.
 * @module
 */
import { checkHmac, malformed, noSecret, unsigned } from "../_verdict.ts";
import { fromHex, hmac, toHex } from "../hmac.ts";
import type { Provider } from "../types.ts";
import { isObject } from "../view.ts";

const SCHEME = "dropbox-sha256";

/** The Dropbox provider. */
export const dropbox: Provider = {
  name: "dropbox",
  title: "Dropbox",
  signatureHeaders: ["x-dropbox-signature"],
  timestamped: false,
  detect: (view) =>
    view.header("x-dropbox-signature") !== undefined ||
    (view.method === "GET" && view.query.includes("challenge=") && view.params().has("challenge")),
  eventType: (view) => {
    if (view.params().has("challenge")) return "verification";
    const body = view.json();
    return isObject(body) ? Object.keys(body)[0] : undefined;
  },
  verify(view, settings) {
    const header = view.header("x-dropbox-signature");
    if (header === undefined) return unsigned(SCHEME, "X-Dropbox-Signature header");
    if (settings.secrets.length === 0) return noSecret(SCHEME, "app secret");
    const sig = fromHex(header);
    if (sig === undefined) return malformed(SCHEME, "expected a hex digest");
    return checkHmac(SCHEME, view, settings, [sig], (body, secret) => hmac("sha256", secret, body));
  },
  resign(request, settings) {
    return [
      ...request.headers.filter(([k]) => k.toLowerCase() !== "x-dropbox-signature"),
      ["X-Dropbox-Signature", toHex(hmac("sha256", settings.secrets[0]!, request.body))],
    ];
  },
  challenge(view) {
    const challenge = view.params().get("challenge");
    if (view.method !== "GET" || challenge === null) return undefined;
    return {
      status: 200,
      headers: [["content-type", "text/plain"], ["x-content-type-options", "nosniff"]],
      body: challenge,
    };
  },
};

/** This folder's provider, for the index (src/providers/index.ts). */
export const provider: Provider = dropbox;
