/**
 * Twilio: `X-Twilio-Signature: <base64 HMAC-SHA1(auth token, URL + sorted
 * form parameters as name+value)>`, over the URL Twilio called (the public
 * one: ngrok's or cloudflared's, read from Host / X-Forwarded-*). JSON
 * bodies are covered by a `bodySHA256` query parameter. Re-signed for the
 * target URL on replay.
 * @module
 */
import type { Verdict } from "../../event/record.ts";
import { checkHmac, malformed, noSecret, unsigned } from "../_verdict.ts";
import { fromBase64, hmac, safeEqual, sha256Hex, toBase64 } from "../hmac.ts";
import type { Provider, RequestView } from "../types.ts";

const SCHEME = "twilio-sha1";

function _form(contentType: string | undefined, body: Uint8Array): [string, string][] {
  if (!/x-www-form-urlencoded/i.test(contentType ?? "")) return [];
  return [...new URLSearchParams(new TextDecoder().decode(body))];
}

/** The string Twilio signs: the URL, then each parameter name and value, sorted by name. */
export function twilioSigned(url: string, params: readonly [string, string][]): string {
  const sorted = [...params].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return url + sorted.map(([k, v]) => k + v).join("");
}

function _variants(url: string): string[] {
  const u = new URL(url);
  const out = [url];
  const port = u.protocol === "https:" ? "443" : "80";
  const withPort = new URL(url);
  if (u.port === "") {
    withPort.port = port;
    out.push(withPort.href.replace(`${withPort.hostname}/`, `${withPort.hostname}:${port}/`));
  } else {
    const bare = new URL(url);
    bare.port = "";
    out.push(bare.href);
  }
  return out;
}

/** The Twilio provider. */
export const twilio: Provider = {
  name: "twilio",
  title: "Twilio",
  signatureHeaders: ["x-twilio-signature"],
  timestamped: false,
  detect: (view) => view.header("x-twilio-signature") !== undefined,
  eventType: (view) => {
    const form = new Map(_form(view.header("content-type"), view.body));
    return form.get("MessageStatus") ?? form.get("SmsStatus") ?? form.get("CallStatus") ??
      form.get("EventType");
  },
  verify(view: RequestView, settings): Verdict {
    const header = view.header("x-twilio-signature");
    if (header === undefined) return unsigned(SCHEME, "X-Twilio-Signature header");
    if (settings.secrets.length === 0) return noSecret(SCHEME, "auth token");
    const sig = fromBase64(header);
    if (sig === undefined || sig.length !== 20) return malformed(SCHEME, "expected a base64 SHA-1 digest");
    const url = view.publicUrl();
    const hash = view.params().get("bodySHA256");
    if (hash !== null && hash !== sha256Hex(view.body)) {
      return {
        status: "invalid",
        scheme: SCHEME,
        reason: "the body was changed on the way: it does not hash to bodySHA256",
      };
    }
    const params = hash !== null ? [] : _form(view.header("content-type"), view.body);
    const urls = _variants(url);
    const signs = (u: string, body: Uint8Array, secret: string) =>
      hmac("sha1", secret, twilioSigned(u, hash !== null ? [] : _form(view.header("content-type"), body)));
    for (let i = 0; i < settings.secrets.length; i++) {
      for (const u of urls) {
        if (safeEqual(sig, hmac("sha1", settings.secrets[i]!, twilioSigned(u, params)))) {
          return settings.secrets.length > 1
            ? { status: "valid", scheme: SCHEME, reason: `matches secret #${i + 1}` }
            : { status: "valid", scheme: SCHEME };
        }
      }
    }
    const other = new URL(url);
    other.protocol = other.protocol === "https:" ? "http:" : "https:";
    for (const u of [other.href, ..._variants(other.href)]) {
      for (const secret of settings.secrets) {
        if (safeEqual(sig, hmac("sha1", secret, twilioSigned(u, params)))) {
          return {
            status: "invalid",
            scheme: SCHEME,
            reason: `the signed URL differs: Twilio signed ${u}, this request arrived as ${url}; ` +
              "a proxy that rewrites the scheme should pass X-Forwarded-Proto",
          };
        }
      }
    }
    const verdict = checkHmac(SCHEME, view, settings, [sig], (body, secret) => signs(url, body, secret));
    return verdict.status === "invalid" && /secret is wrong/.test(verdict.reason ?? "")
      ? {
        ...verdict,
        reason: `the secret is wrong or the signed URL differs: no auth token signs ${url} with these ` +
          "parameters; check the auth token, and that the URL configured at Twilio is this one",
      }
      : verdict;
  },
  resign(request, settings) {
    const ct = request.headers.find(([k]) => k.toLowerCase() === "content-type")?.[1];
    const sig = toBase64(
      hmac("sha1", settings.secrets[0]!, twilioSigned(request.url, _form(ct, request.body))),
    );
    return [...request.headers.filter(([k]) => k.toLowerCase() !== "x-twilio-signature"), [
      "X-Twilio-Signature",
      sig,
    ]];
  },
};

/** This folder's provider, for the index (src/providers/index.ts). */
export const provider: Provider = twilio;
