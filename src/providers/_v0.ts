/**
 * The `v0` scheme Slack and Zoom share: `<signature header>: v0=<hex
 * HMAC-SHA256(secret, "v0:<timestamp header>:<body>")>`, the timestamp in
 * its own header (unix seconds), checked against the tolerance.
 * @module
 */
import type { Verdict } from "../event/record.ts";
import { checkHmac, expired, fresh, malformed, noSecret, unsigned } from "./_verdict.ts";
import { fromHex, hmacParts, toHex } from "./hmac.ts";
import type { ProviderSettings, RequestView, ResignRequest } from "./types.ts";

/** One provider's names for the scheme's parts. */
export interface V0Names {
  scheme: string;
  /** Signature and timestamp headers, as the provider spells them (sent so on re-signing). */
  signature: string;
  timestamp: string;
  /** What the provider calls its secret, for the `no secret` verdict. */
  secretName: string;
}

/** The verdict of the `v0` scheme. */
export function verifyV0(view: RequestView, settings: ProviderSettings, names: V0Names): Verdict {
  const { scheme } = names;
  const header = view.header(names.signature.toLowerCase());
  const ts = view.header(names.timestamp.toLowerCase());
  if (header === undefined) return unsigned(scheme, `${names.signature} header`);
  if (settings.secrets.length === 0) return noSecret(scheme, names.secretName);
  if (ts === undefined || !/^\d+$/.test(ts)) {
    return malformed(scheme, `${names.timestamp} is missing or not a unix time`);
  }
  const sig = header.startsWith("v0=") ? fromHex(header.slice(3)) : undefined;
  if (sig === undefined) return malformed(scheme, `expected "v0=<hex digest>", got "${header.slice(0, 80)}"`);
  const verdict = checkHmac(
    scheme,
    view,
    settings,
    [sig],
    (b, s) => hmacParts("sha256", s, [`v0:${ts}:`, b]),
  );
  if (verdict.status === "valid" && !fresh(Number(ts), view.receivedAt, settings.tolerance)) {
    return expired(scheme, Number(ts), view.receivedAt, settings.tolerance);
  }
  return verdict;
}

/** The request's headers with a `v0` signature made at `now` with the first secret. */
export function resignV0(
  request: ResignRequest,
  settings: ProviderSettings,
  now: Date,
  names: V0Names,
): [string, string][] {
  const ts = String(Math.floor(now.getTime() / 1000));
  const sig = toHex(hmacParts("sha256", settings.secrets[0]!, [`v0:${ts}:`, request.body]));
  const mine = new Set([names.signature.toLowerCase(), names.timestamp.toLowerCase()]);
  return [
    ...request.headers.filter(([k]) => !mine.has(k.toLowerCase())),
    [names.timestamp, ts],
    [names.signature, `v0=${sig}`],
  ];
}
