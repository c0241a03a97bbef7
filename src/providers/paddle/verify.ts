/**
 * Paddle Billing: `Paddle-Signature: ts=<unix>;h1=<hex HMAC-SHA256(secret,
 * "ts:body")>`. Event type from the body's `event_type`. Re-signed on replay.
 * @module
 */
import { checkHmac, expired, fresh, malformed, noSecret, unsigned } from "../_verdict.ts";
import { fromHex, hmacParts, toHex } from "../hmac.ts";
import type { Provider } from "../types.ts";
import { jsonString } from "../view.ts";

const SCHEME = "paddle-h1";

/** The Paddle provider. */
export const paddle: Provider = {
  name: "paddle",
  title: "Paddle",
  signatureHeaders: ["paddle-signature"],
  timestamped: true,
  detect: (view) => view.header("paddle-signature") !== undefined,
  eventType: (view) => jsonString(view, "event_type"),
  verify(view, settings) {
    const header = view.header("paddle-signature");
    if (header === undefined) return unsigned(SCHEME, "Paddle-Signature header");
    if (settings.secrets.length === 0) return noSecret(SCHEME);
    const parts = new Map(
      header.split(";").map((p) => [p.slice(0, p.indexOf("=")), p.slice(p.indexOf("=") + 1)]),
    );
    const ts = parts.get("ts");
    const sigs = header.split(";").filter((p) => p.startsWith("h1=")).map((p) => fromHex(p.slice(3)));
    const valid = sigs.filter((s) => s !== undefined);
    if (ts === undefined || !/^\d+$/.test(ts) || valid.length === 0) {
      return malformed(SCHEME, `expected "ts=<unix>;h1=<hex>", got "${header.slice(0, 80)}"`);
    }
    const verdict = checkHmac(SCHEME, view, settings, valid, (b, s) => hmacParts("sha256", s, [`${ts}:`, b]));
    if (verdict.status === "valid" && !fresh(Number(ts), view.receivedAt, settings.tolerance)) {
      return expired(SCHEME, Number(ts), view.receivedAt, settings.tolerance);
    }
    return verdict;
  },
  resign(request, settings, now) {
    const ts = String(Math.floor(now.getTime() / 1000));
    const sig = toHex(hmacParts("sha256", settings.secrets[0]!, [`${ts}:`, request.body]));
    return [...request.headers.filter(([k]) => k.toLowerCase() !== "paddle-signature"), [
      "Paddle-Signature",
      `ts=${ts};h1=${sig}`,
    ]];
  },
};

/** This folder's provider, for the index (src/providers/index.ts). */
export const provider: Provider = paddle;
