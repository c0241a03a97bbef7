/**
 * X (Twitter) Account Activity: the CRC check (`GET ?crc_token=...`) is
 * answered `{"response_token": "sha256=<base64 HMAC-SHA256(consumer secret,
 * crc_token)>"}`; events carry `x-twitter-webhooks-signature: sha256=<base64
 * HMAC-SHA256(consumer secret, body)>`.
 * @module
 */
import { checkHmac, malformed, noSecret, unsigned } from "../_verdict.ts";
import { fromBase64, hmac, toBase64 } from "../hmac.ts";
import type { Provider } from "../types.ts";
import { isObject } from "../view.ts";

const SCHEME = "x-sha256";

/** The X (Twitter) provider. */
export const twitter: Provider = {
  name: "x",
  title: "X (Twitter)",
  signatureHeaders: ["x-twitter-webhooks-signature"],
  timestamped: false,
  detect: (view) =>
    view.header("x-twitter-webhooks-signature") !== undefined ||
    (view.method === "GET" && view.query.includes("crc_token=") && view.params().has("crc_token")),
  eventType: (view) => {
    if (view.params().has("crc_token")) return "crc";
    const body = view.json();
    return isObject(body) ? Object.keys(body).find((k) => k.endsWith("_events")) : undefined;
  },
  verify(view, settings) {
    const header = view.header("x-twitter-webhooks-signature");
    if (header === undefined) return unsigned(SCHEME, "x-twitter-webhooks-signature header");
    if (settings.secrets.length === 0) return noSecret(SCHEME, "consumer secret");
    const sig = header.startsWith("sha256=") ? fromBase64(header.slice(7)) : undefined;
    if (sig === undefined) {
      return malformed(SCHEME, `expected "sha256=<base64>", got "${header.slice(0, 80)}"`);
    }
    return checkHmac(SCHEME, view, settings, [sig], (body, secret) => hmac("sha256", secret, body));
  },
  resign(request, settings) {
    return [
      ...request.headers.filter(([k]) => k.toLowerCase() !== "x-twitter-webhooks-signature"),
      [
        "x-twitter-webhooks-signature",
        `sha256=${toBase64(hmac("sha256", settings.secrets[0]!, request.body))}`,
      ],
    ];
  },
  challenge(view, settings) {
    const token = view.params().get("crc_token");
    const secret = settings.secrets[0];
    if (view.method !== "GET" || token === null || secret === undefined) return undefined;
    const response_token = `sha256=${toBase64(hmac("sha256", secret, token))}`;
    return {
      status: 200,
      headers: [["content-type", "application/json"]],
      body: JSON.stringify({ response_token }),
    };
  },
};

/** This folder's provider, for the index (src/providers/index.ts). */
export const provider: Provider = twitter;
