/**
 * Stripe: `Stripe-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret, "t.body")>`
 * (several `v1` while a secret rolls), tolerance 300 s. Event type from the
 * body's `type`. Timestamped: replays are re-signed.
 * @module
 */
import { checkHmac, expired, fresh, malformed, noSecret, unsigned } from "../_verdict.ts";
import { fromHex, hmacParts, toHex } from "../hmac.ts";
import type { Provider } from "../types.ts";
import { jsonString } from "../view.ts";

const SCHEME = "stripe-v1";

/** Splits `t=1,v1=a,v1=b` into its timestamp and v1 signatures. */
export function parseStripeHeader(header: string): { t?: number; v1: string[] } {
  const out: { t?: number; v1: string[] } = { v1: [] };
  for (const part of header.split(",")) {
    const [k, v] = [part.slice(0, part.indexOf("=")).trim(), part.slice(part.indexOf("=") + 1).trim()];
    if (k === "t" && /^\d+$/.test(v)) out.t = Number(v);
    else if (k === "v1") out.v1.push(v);
  }
  return out;
}

/** The Stripe provider. */
export const stripe: Provider = {
  name: "stripe",
  title: "Stripe",
  signatureHeaders: ["stripe-signature"],
  timestamped: true,
  // Stripe's own User-Agent tells an unsigned Stripe request (an endpoint without its secret at Stripe, a
  // trigger without --secret) from any other sender's.
  detect: (view) =>
    view.header("stripe-signature") !== undefined ||
    view.header("user-agent")?.startsWith("Stripe/") === true,
  eventType: (view) => jsonString(view, "type"),
  verify(view, settings) {
    const header = view.header("stripe-signature");
    if (header === undefined) return unsigned(SCHEME, "Stripe-Signature header");
    if (settings.secrets.length === 0) return noSecret(SCHEME);
    const { t, v1 } = parseStripeHeader(header);
    if (t === undefined) return malformed(SCHEME, `no "t=<unix time>" in "${header.slice(0, 80)}"`);
    const sigs = v1.map(fromHex).filter((s) => s !== undefined);
    if (sigs.length === 0) return malformed(SCHEME, `no "v1=<hex>" signature in "${header.slice(0, 80)}"`);
    const verdict = checkHmac(
      SCHEME,
      view,
      settings,
      sigs,
      (body, s) => hmacParts("sha256", s, [`${t}.`, body]),
    );
    if (verdict.status === "valid" && !fresh(t, view.receivedAt, settings.tolerance)) {
      return expired(SCHEME, t, view.receivedAt, settings.tolerance);
    }
    return verdict;
  },
  resign(request, settings, now) {
    const t = Math.floor(now.getTime() / 1000);
    const sig = toHex(hmacParts("sha256", settings.secrets[0]!, [`${t}.`, request.body]));
    return [
      ...request.headers.filter(([k]) => k.toLowerCase() !== "stripe-signature"),
      ["Stripe-Signature", `t=${t},v1=${sig}`],
    ];
  },
};

/** This folder's provider, for the index (src/providers/index.ts). */
export const provider: Provider = stripe;
