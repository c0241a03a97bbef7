/**
 * Zoom: `x-zm-signature: v0=<hex HMAC-SHA256(secret token,
 * "v0:<x-zm-request-timestamp>:<body>")>`. The `endpoint.url_validation`
 * challenge is answered `{ plainToken, encryptedToken }`, the latter the hex
 * HMAC-SHA256 of the plain token with the secret token. Re-signed on replay.
 * @module
 */
import { resignV0, type V0Names, verifyV0 } from "../_v0.ts";
import { hmac, toHex } from "../hmac.ts";
import type { Provider } from "../types.ts";
import { jsonString } from "../view.ts";

const SCHEME = "zoom-v0";
const NAMES: V0Names = {
  scheme: SCHEME,
  signature: "x-zm-signature",
  timestamp: "x-zm-request-timestamp",
  secretName: "secret token",
};

/** The Zoom provider. */
export const zoom: Provider = {
  name: "zoom",
  title: "Zoom",
  signatureHeaders: ["x-zm-signature"],
  timestamped: true,
  detect: (view) =>
    view.header("x-zm-signature") !== undefined || view.header("x-zm-request-timestamp") !== undefined,
  eventType: (view) => jsonString(view, "event"),
  verify: (view, settings) => verifyV0(view, settings, NAMES),
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
  resign: (request, settings, now) => resignV0(request, settings, now, NAMES),
};

/** This folder's provider, for the index (src/providers/index.ts). */
export const provider: Provider = zoom;
