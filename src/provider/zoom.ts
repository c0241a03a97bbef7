/**
 * Zoom: `x-zm-signature: v0=<hex HMAC-SHA256(secret token,
 * "v0:<x-zm-request-timestamp>:<body>")>`. The `endpoint.url_validation`
 * challenge is answered `{ plainToken, encryptedToken }`, the latter the hex
 * HMAC-SHA256 of the plain token with the secret token. Re-signed on replay.
 * @module
 */
import { checkHmac, expired, fresh, malformed, noSecret, unsigned } from "./_verdict.ts";
import { fromHex, hmac, hmacParts, toHex } from "./hmac.ts";
import type { Provider } from "./types.ts";
import { jsonString } from "./view.ts";

const SCHEME = "zoom-v0";

/** The Zoom provider. */
export const zoom: Provider = {
  name: "zoom",
  title: "Zoom",
  signatureHeaders: ["x-zm-signature"],
  timestamped: true,
  detect: (view) =>
    view.header("x-zm-signature") !== undefined || view.header("x-zm-request-timestamp") !== undefined,
  eventType: (view) => jsonString(view, "event"),
  verify(view, settings) {
    const header = view.header("x-zm-signature");
    const ts = view.header("x-zm-request-timestamp");
    if (header === undefined) return unsigned(SCHEME, "x-zm-signature header");
    if (settings.secrets.length === 0) return noSecret(SCHEME, "secret token");
    if (ts === undefined || !/^\d+$/.test(ts)) return malformed(SCHEME, "x-zm-request-timestamp is missing");
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
  challenge(view, settings) {
    if (jsonString(view, "event") !== "endpoint.url_validation") return undefined;
    const plainToken = jsonString(view, "payload", "plainToken");
    const secret = settings.secrets[0];
    if (plainToken === undefined || secret === undefined) return undefined;
    const encryptedToken = toHex(hmac("sha256", secret, plainToken));
    return {
      status: 200,
      headers: [["content-type", "application/json"]],
      body: JSON.stringify({ plainToken, encryptedToken }),
    };
  },
  resign(request, settings, now) {
    const ts = String(Math.floor(now.getTime() / 1000));
    const sig = toHex(hmacParts("sha256", settings.secrets[0]!, [`v0:${ts}:`, request.body]));
    return [
      ...request.headers.filter(([k]) => !/^x-zm-(signature|request-timestamp)$/i.test(k)),
      ["x-zm-request-timestamp", ts],
      ["x-zm-signature", `v0=${sig}`],
    ];
  },
};
