/**
 * Discord interactions: `X-Signature-Ed25519` (hex) over
 * `X-Signature-Timestamp` + body, checked with the application's public key
 * (hex) through `crypto.subtle`. A `PING` (`{"type":1}`) is answered
 * `{"type":1}` only when the signature verifies, and 401 otherwise: Discord
 * sends bad signatures on purpose to check that the endpoint refuses them.
 * @module
 */
import type { Verdict } from "../../event/record.ts";
import { signWithKey, verifyEd25519 } from "../_ed25519.ts";
import { malformed, noSecret, unsigned } from "../_verdict.ts";
import { fromHex, toHex } from "../hmac.ts";
import type { Provider, ProviderSettings, RequestView } from "../types.ts";
import { isObject } from "../view.ts";
import { concatBytes } from "../../bytes.ts";

const SCHEME = "discord-ed25519";
const TYPES: Record<number, string> = {
  1: "PING",
  2: "APPLICATION_COMMAND",
  3: "MESSAGE_COMPONENT",
  4: "APPLICATION_COMMAND_AUTOCOMPLETE",
  5: "MODAL_SUBMIT",
};

async function _verify(view: RequestView, settings: ProviderSettings): Promise<Verdict> {
  const header = view.header("x-signature-ed25519");
  const ts = view.header("x-signature-timestamp");
  if (header === undefined) return unsigned(SCHEME, "X-Signature-Ed25519 header");
  if (settings.publicKey === undefined) return noSecret(SCHEME, "public key");
  const sig = fromHex(header);
  if (sig === undefined || sig.length !== 64 || ts === undefined) {
    return malformed(SCHEME, "expected a 128-digit hex signature and an X-Signature-Timestamp");
  }
  const key = fromHex(settings.publicKey);
  if (key === undefined || key.length !== 32) {
    return { status: "invalid", scheme: SCHEME, reason: "the configured publicKey is not 64 hex digits" };
  }
  const data = concatBytes([new TextEncoder().encode(ts), view.body]);
  return await verifyEd25519(key, sig, data) ? { status: "valid", scheme: SCHEME } : {
    status: "invalid",
    scheme: SCHEME,
    reason: "the Ed25519 signature does not verify with the configured publicKey (Discord sends such " +
      "requests on purpose to check that they are refused, or the key is another application's)",
  };
}

/** The Discord interactions provider. */
export const discord: Provider = {
  name: "discord",
  title: "Discord",
  signatureHeaders: ["x-signature-ed25519"],
  timestamped: false,
  detect: (view) => view.header("x-signature-ed25519") !== undefined,
  eventType: (view) => {
    const body = view.json();
    const type = isObject(body) ? body.type : undefined;
    return typeof type === "number" ? TYPES[type] ?? String(type) : undefined;
  },
  verify: _verify,
  async sign(request, privateKey, now) {
    const ts = String(Math.floor(now.getTime() / 1000));
    const sig = await signWithKey(
      privateKey,
      concatBytes([new TextEncoder().encode(ts), request.body]),
    );
    return [
      ...request.headers.filter(([k]) => !/^x-signature-(ed25519|timestamp)$/i.test(k)),
      ["X-Signature-Ed25519", toHex(sig)],
      ["X-Signature-Timestamp", ts],
    ];
  },
  async challenge(view, settings) {
    const body = view.json();
    // An interaction's PING is type 1; a webhook event's PING is type 0 (an event, with `event`, type 1).
    if (!isObject(body) || "event" in body) return undefined;
    const webhookPing = body.type === 0 && "application_id" in body && !("token" in body);
    if (!webhookPing && body.type !== 1) return undefined;
    const verdict = await _verify(view, settings);
    if (verdict.status !== "valid") {
      return {
        status: 401,
        headers: [["content-type", "text/plain; charset=utf-8"]],
        body: "invalid request signature",
      };
    }
    // Discord's docs: a webhook event PING is acknowledged with 204 and no body, an interaction PING with a PONG.
    // ("You must provide a valid Content-Type when responding to PINGs.")
    if (webhookPing) return { status: 204, headers: [["content-type", "application/json"]], body: "" };
    return { status: 200, headers: [["content-type", "application/json"]], body: '{"type":1}' };
  },
};

/** This folder's provider, for the index (src/providers/index.ts). */
export const provider: Provider = discord;
