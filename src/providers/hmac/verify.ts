/**
 * A generic HMAC scheme described in the endpoint's `hmac` config: which
 * header, algorithm, encoding and prefix, and what is signed (a template of
 * `{body}`, `{method}`, `{url}`, `{header:Name}`).
 * @module
 */
import type { Verdict } from "../../event/record.ts";
import { checkHmac, malformed, noSecret, unsigned } from "../_verdict.ts";
import { decodeSignature, hmacParts, toBase64, toHex } from "../hmac.ts";
import type { GenericHmacSettings, Provider, RequestView, ResignRequest } from "../types.ts";

function _parts(
  signed: string,
  get: (name: string) => string | undefined,
  method: string,
  url: string,
  body: Uint8Array,
) {
  const parts: (string | Uint8Array)[] = [];
  for (const piece of signed.split(/(\{[^}]+\})/)) {
    if (piece === "{body}") parts.push(body);
    else if (piece === "{method}") parts.push(method);
    else if (piece === "{url}") parts.push(url);
    else if (piece.startsWith("{header:")) parts.push(get(piece.slice(8, -1)) ?? "");
    else if (piece !== "") parts.push(piece);
  }
  return parts;
}

function _verify(view: RequestView, hmac: GenericHmacSettings, secrets: readonly string[]): Verdict {
  const scheme = `hmac-${hmac.algorithm}`;
  const header = view.header(hmac.header);
  if (header === undefined) return unsigned(scheme, `${hmac.header} header`);
  if (secrets.length === 0) return noSecret(scheme);
  if (!header.startsWith(hmac.prefix)) return malformed(scheme, `expected it to start with "${hmac.prefix}"`);
  const sig = decodeSignature(header.slice(hmac.prefix.length), hmac.encoding);
  if (sig === undefined) return malformed(scheme, `expected ${hmac.encoding} after "${hmac.prefix}"`);
  return checkHmac(
    scheme,
    view,
    { secrets } as never,
    [sig],
    (body, secret) =>
      hmacParts(
        hmac.algorithm,
        secret,
        _parts(hmac.signed, view.header, view.method, view.publicUrl(), body),
      ),
  );
}

/** The configured generic HMAC scheme. */
export const genericHmac: Provider = {
  name: "hmac",
  title: "HMAC (configured)",
  signatureHeaders: [],
  timestamped: false,
  detect: () => false,
  eventType: () => undefined,
  verify: (view, settings) =>
    settings.hmac === undefined
      ? unsigned("hmac", "signature")
      : _verify(view, settings.hmac, settings.secrets),
  resign(request: ResignRequest, settings) {
    const h = settings.hmac!;
    const get = (n: string) => request.headers.find(([k]) => k.toLowerCase() === n.toLowerCase())?.[1];
    const digest = hmacParts(
      h.algorithm,
      settings.secrets[0]!,
      _parts(h.signed, get, request.method, request.url, request.body),
    );
    const value = h.prefix + (h.encoding === "hex" ? toHex(digest) : toBase64(digest));
    return [...request.headers.filter(([k]) => k.toLowerCase() !== h.header.toLowerCase()), [
      h.header,
      value,
    ]];
  },
};

/** This folder's provider, for the index (src/providers/index.ts). */
export const provider: Provider = genericHmac;
