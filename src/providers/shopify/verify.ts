/**
 * Shopify: `X-Shopify-Hmac-Sha256: <base64 HMAC-SHA256(secret, body)>`;
 * topic in `X-Shopify-Topic` (`orders/create`). Body-only.
 * @module
 */
import { checkHmac, malformed, noSecret, unsigned } from "../_verdict.ts";
import { fromBase64, hmac, toBase64 } from "../hmac.ts";
import type { Provider } from "../types.ts";

const SCHEME = "shopify-hmac-sha256";

/** The Shopify provider. */
export const shopify: Provider = {
  name: "shopify",
  title: "Shopify",
  signatureHeaders: ["x-shopify-hmac-sha256"],
  timestamped: false,
  detect: (view) =>
    view.header("x-shopify-topic") !== undefined || view.header("x-shopify-hmac-sha256") !== undefined,
  eventType: (view) => view.header("x-shopify-topic"),
  verify(view, settings) {
    const header = view.header("x-shopify-hmac-sha256");
    if (header === undefined) return unsigned(SCHEME, "X-Shopify-Hmac-Sha256 header");
    if (settings.secrets.length === 0) return noSecret(SCHEME);
    const sig = fromBase64(header);
    if (sig === undefined || sig.length !== 32) return malformed(SCHEME, "expected a base64 SHA-256 digest");
    return checkHmac(SCHEME, view, settings, [sig], (body, secret) => hmac("sha256", secret, body));
  },
  resign(request, settings) {
    return [
      ...request.headers.filter(([k]) => k.toLowerCase() !== "x-shopify-hmac-sha256"),
      ["X-Shopify-Hmac-Sha256", toBase64(hmac("sha256", settings.secrets[0]!, request.body))],
    ];
  },
};

/** This folder's provider, for the index (src/providers/index.ts). */
export const provider: Provider = shopify;
