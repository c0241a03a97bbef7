/**
 * The request every send path makes of a stored event (forward, retry,
 * resume, replay, bulk, `--undelivered`, inspector, library): the stored
 * one exactly, with the user's overrides (./overrides.ts) and a fresh
 * signature (`--resign`, and always after a body change when a secret is
 * known). When hooktap cannot sign, it says exactly why the app will reject
 * the send. Pure apart from the clock.
 * @module
 */
import { HooktapError } from "../errors.ts";
import { type CapturedEvent, decodeBody, headerValue } from "../event/record.ts";
import { providerFacts } from "../providers/catalog.ts";
import { TIMESTAMP_HEADERS } from "../providers/signing.ts";
import { verdictReason } from "../providers/verdict_reason.ts";
import type { ProviderSettings } from "../providers/types.ts";
import { applyHeaderOverrides, applySets, changesBody, keepPlaces, type Overrides } from "./overrides.ts";
import { staleSignatureWarning } from "./signatures.ts";
import { isHopHeader } from "./target.ts";

/** The time (ms) a timestamped signature in `headers` was made, when one is there. */
export function signedTime(headers: readonly [string, string][]): number | undefined {
  for (const t of TIMESTAMP_HEADERS) {
    const value = headerValue(headers, t.header);
    const at = value === undefined ? undefined : t.read(value);
    if (at !== undefined) return at;
  }
  return undefined;
}

function _ago(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 120 ? `${s} s` : s < 7200 ? `${Math.round(s / 60)} min` : `${Math.round(s / 3600)} h`;
}

/**
 * The precise reason the app will refuse an unsigned-again replay, or `undefined` if it will not.
 * `settings` `undefined` means the config was not read (a replay to `--to` without `--resign` reads it only
 * for this advice, and may not load it): the fix is then `--resign` (which reads it and says what is wrong),
 * never a claim that the secret is missing; `null`
 * means it was read and the endpoint has no secret (the fix is to add one);
 * `resigning` says `--resign` was asked and could not be honoured (then the secret is what is missing).
 */
export function rejectionReason(
  event: CapturedEvent,
  changedBody: boolean,
  settings: ProviderSettings | null | undefined,
  now: Date,
  resigning = false,
): string | undefined {
  const provider = event.provider === undefined ? undefined : providerFacts(event.provider);
  if (provider === undefined || event.verdict?.status === "unsigned") return undefined;
  const title = provider.title;
  const fix = !provider.resigns
    ? `${title} signs with its private key, so only ${title} can sign a changed request`
    : event.verdict?.status === "invalid" && !resigning // --resign-invalid asked: the secret is what lacks
    ? "its signature was invalid when hooktap received it, so --resign refuses to sign it afresh " +
      "(--resign-invalid does it anyway)"
    : (settings?.secrets.length ?? 0) > 0 || (settings === undefined && !resigning)
    ? "send it with --resign to sign it afresh with the endpoint's secret"
    : `add the signing secret to endpoint "${event.endpoint}" in hooktap.config.ts ` +
      `(secret: process.env.${event.provider!.toUpperCase().replace(/-/g, "_")}_WEBHOOK_SECRET) ` +
      "and replay with --resign";
  if (changedBody) {
    return `the ${title} signature covers the body, and the body was changed, so the app will reject ` +
      `the replay as an invalid signature; ${fix}`;
  }
  if (!provider.timestamped) return undefined;
  const signedAt = signedTime(event.headers) ?? Date.parse(event.receivedAt);
  const tolerance = settings?.tolerance ?? 300;
  const age = now.getTime() - signedAt;
  if (age <= tolerance * 1000) return undefined;
  return `the stored ${title} signature covers its timestamp (about ${_ago(age)} ago), and ${title}'s ` +
    `libraries refuse timestamps older than ${tolerance} s, so the app will reject the replay as expired ` +
    `even though the signature itself is right; ${fix}`;
}

/** Options of {@linkcode prepareRequest}. */
export interface PrepareOptions {
  /** What the user changes (`-X`, `-H`, `--body-file`, `--set`). @default {} */
  overrides?: Overrides;
  /** Re-sign with the endpoint's secret and `now` (`--resign`). @default false */
  resign?: boolean;
  /**
   * The endpoint's signing settings from the config, when it has any; `null` when the config was read and
   * the endpoint has none (a hint then says to add its secret, not to use `--resign`).
   */
  settings?: ProviderSettings | null;
  /** Clock. @default new Date() */
  now?: Date;
  /**
   * Re-sign even an event whose signature was `invalid` at receipt (`--resign-invalid`): without it,
   * `resign` refuses such an event (signing it afresh would make the app accept what its sender did not
   * sign right), and a changed body of one is sent with the stored signature.
   * @default false
   */
  resignInvalid?: boolean;
}

/** Why re-signing `event` is refused: its signature was invalid at receipt. */
export class InvalidSignatureError extends HooktapError {
  override name = "InvalidSignatureError";
}

/** The refusal to re-sign an event stored with an `invalid` verdict; `option` names the way to do it anyway. */
export function invalidResignMessage(event: CapturedEvent, option = "--resign-invalid"): string {
  const reason = verdictReason(event); // a fault `hooktap trigger` sent on purpose: that, not the secret
  const why = reason ? ` (${reason.replace(/[.\s]+$/, "")})` : "";
  return `Refusing to re-sign ${event.id}: its signature was invalid when hooktap received it${why}. ` +
    `Signing it afresh would make the app accept as valid a request its sender did not sign right. ` +
    `Replay it without re-signing to send it as it came, or use ${option} to re-sign it anyway.`;
}

/** What goes out: method, header list (exact, in order), body; and what was done to it. */
export interface OutgoingRequest {
  method: string;
  headers: [string, string][];
  body: Uint8Array | null;
  /** Re-signed with this provider's scheme. */
  resigned?: string;
  /** Why the app is likely to reject it, when hooktap did not (or could not) sign it. */
  warning?: string;
}

const BODYLESS = new Set(["GET", "HEAD"]);

/**
 * The request an event is sent as: the stored method, body bytes and
 * headers (order, case, repeats; minus hop-by-hop ones and `Host`), with
 * the user's overrides, `Content-Length` made right for the body sent (in
 * its place, added at the end only when the sender had none), and a fresh
 * signature when asked (`--resign`) or when the body changed and a secret is
 * known. Nothing else is added.
 * @throws {UsageError} for a bad `--set`.
 * @throws {HooktapError} when `--resign` is asked but hooktap cannot sign.
 */
export async function prepareRequest(
  event: CapturedEvent,
  url: URL,
  options: PrepareOptions = {},
): Promise<OutgoingRequest> {
  const now = options.now ?? new Date();
  const o = options.overrides ?? {};
  const method = (o.method ?? event.method).toUpperCase();
  let body: Uint8Array | null = o.body ?? decodeBody(event);
  if ((o.set ?? []).length > 0) {
    body = applySets(body, headerValue(event.headers, "content-type"), o.set!, o.setNew ?? false);
  }
  const changed = changesBody(o);
  if (BODYLESS.has(method) && body.length > 0) body = null; // a GET or HEAD carries no body
  let headers = applyHeaderOverrides(event.headers.filter(([n]) => !isHopHeader(n)), o.headers);
  headers = withLength(headers, body, method);
  const settings = options.settings;
  const canSign = event.provider !== undefined && settings !== undefined && settings !== null &&
    settings.secrets.length > 0 &&
    providerFacts(event.provider)?.resigns === true;
  const invalid = event.verdict?.status === "invalid" && options.resignInvalid !== true;
  if (options.resign && invalid) throw new InvalidSignatureError(invalidResignMessage(event));
  if (options.resign || options.resignInvalid || (changed && canSign && !invalid)) {
    if (!canSign) {
      const facts = event.provider === undefined ? undefined : providerFacts(event.provider);
      const why = rejectionReason(event, changed, settings, now, true) ??
        (facts === undefined
          ? "hooktap did not recognise a signature scheme on this event (send it without --resign: it goes as stored)"
          : facts.keyPair !== undefined
          ? `${facts.title} signs with its private key, which only ${facts.title} holds, so no one else can ` +
            "sign it afresh (its stored signature still verifies: send it without --resign)"
          : !facts.resigns
          ? `hooktap does not sign ${facts.title} requests afresh (send it without --resign: it goes as stored)`
          : facts.timestamped
          ? `endpoint "${event.endpoint}" has no secret in the config (the stored signature is still ` +
            "within the tolerance, so sending without --resign works for now)"
          : `endpoint "${event.endpoint}" has no secret in the config (a ${facts.title} signature has no ` +
            "timestamp to go stale, so sending without --resign works)");
      throw new HooktapError(`Cannot re-sign ${event.id}: ${why}.`);
    }
    // Loaded only to sign: the providers pull in node:crypto (~50 ms at start-up).
    const { resignRequest } = await import("../providers/resign.ts");
    const signed = await resignRequest(
      event.provider!,
      { method, url: url.href, headers, body: body ?? new Uint8Array() },
      settings!,
      now,
    );
    return { method, headers: keepPlaces(headers, signed), body, resigned: event.provider! };
  }
  const warning =
    (changed && canSign && invalid
      ? "the body was changed, and it was not signed afresh because its stored signature was invalid when " +
        "hooktap received it (--resign-invalid signs it anyway), so the app will reject it as an invalid signature"
      : undefined) ??
      rejectionReason(event, changed, settings, now) ??
      (event.provider === undefined ? staleSignatureWarning(event, now) : undefined);
  return warning === undefined ? { method, headers, body } : { method, headers, body, warning };
}

/** Whether a header name is `Content-Length`, any case (names of other lengths are not lower-cased). */
const isContentLength = (name: string) => name.length === 14 && name.toLowerCase() === "content-length";

/** `Content-Length` right for `body`: its value changed in place, dropped without a body, added when missing. */
export function withLength(
  headers: [string, string][],
  body: Uint8Array | null,
  method: string,
): [string, string][] {
  // Loops, not `findIndex` with closures (and destructuring iterators) per delivery.
  let at = -1;
  let more = false;
  for (let i = 0; i < headers.length; i++) {
    if (!isContentLength(headers[i]![0])) continue;
    if (at === -1) at = i;
    else more = true;
  }
  if (body === null) {
    return at === -1 ? headers : headers.filter(([n]) => !isContentLength(n));
  }
  const value = String(body.length);
  if (at !== -1) {
    if (headers[at]![1] === value && !more) return headers;
    const name = headers[at]![0];
    const out = headers.filter(([n], i) => i === at || !isContentLength(n));
    out[out.findIndex(([n]) => n === name)] = [name, value];
    return out;
  }
  if (body.length > 0 || !["GET", "HEAD", "DELETE", "OPTIONS"].includes(method)) {
    headers.push(["Content-Length", value]);
  }
  return headers;
}
