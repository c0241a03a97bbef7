/**
 * SendGrid Event Webhook: `X-Twilio-Email-Event-Webhook-Signature` (base64
 * DER ECDSA P-256 / SHA-256) over `X-Twilio-Email-Event-Webhook-Timestamp` +
 * body, checked with the verification key (base64 SPKI) via `crypto.subtle`.
 * @module
 */
import { signWithKey, verifyP256 } from "../_ed25519.ts";
import { malformed, noSecret, unsigned } from "../_verdict.ts";
import { fromBase64, toBase64 } from "../hmac.ts";
import type { Provider } from "../types.ts";
import { isObject } from "../view.ts";
import { concatBytes } from "../../bytes.ts";

const SCHEME = "sendgrid-ecdsa";
const SIG = "x-twilio-email-event-webhook-signature";
const TS = "x-twilio-email-event-webhook-timestamp";

/** The SendGrid provider. */
export const sendgrid: Provider = {
  name: "sendgrid",
  title: "SendGrid",
  signatureHeaders: [SIG],
  timestamped: false,
  detect: (view) => view.header(SIG) !== undefined,
  eventType: (view) => {
    const body = view.json();
    const first = Array.isArray(body) ? body[0] : undefined;
    return isObject(first) && typeof first.event === "string" ? first.event : undefined;
  },
  async verify(view, settings) {
    const header = view.header(SIG);
    const ts = view.header(TS);
    if (header === undefined) return unsigned(SCHEME, "X-Twilio-Email-Event-Webhook-Signature header");
    if (settings.publicKey === undefined) return noSecret(SCHEME, "public key");
    const sig = fromBase64(header);
    if (sig === undefined || ts === undefined) {
      return malformed(SCHEME, "expected a base64 signature and a timestamp header");
    }
    const key = fromBase64(settings.publicKey.replace(/-----[^-]+-----|\s/g, ""));
    if (key === undefined) {
      return { status: "invalid", scheme: SCHEME, reason: "the configured publicKey is not base64" };
    }
    const data = concatBytes([new TextEncoder().encode(ts), view.body]);
    return await verifyP256(key, sig, data) ? { status: "valid", scheme: SCHEME } : {
      status: "invalid",
      scheme: SCHEME,
      reason: "the ECDSA signature does not verify with the configured verification key: the body or " +
        "timestamp changed, or the key belongs to another account",
    };
  },
  async sign(request, privateKey, now) {
    const ts = String(Math.floor(now.getTime() / 1000));
    const sig = await signWithKey(
      privateKey,
      concatBytes([new TextEncoder().encode(ts), request.body]),
    );
    return [
      ...request.headers.filter(([k]) => k.toLowerCase() !== SIG && k.toLowerCase() !== TS),
      ["X-Twilio-Email-Event-Webhook-Signature", toBase64(sig)],
      ["X-Twilio-Email-Event-Webhook-Timestamp", ts],
    ];
  },
};

/** This folder's provider, for the index (src/providers/index.ts). */
export const provider: Provider = sendgrid;
