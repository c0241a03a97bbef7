/**
 * What a replay sends when it is changed: a body from a file, one JSON
 * field set (`--set data.object.amount=5000`), and a fresh signature
 * (`--resign`, and always after a body change when a secret is known).
 * When hooktap cannot sign, it says exactly why the app will reject the
 * replay. Pure apart from the clock.
 * @module
 */
import { HooktapError, UsageError } from "../errors.ts";
import { type CapturedEvent, decodeBody, encodeBody, headerValue } from "../event/record.ts";
import { providerFacts } from "../provider/catalog.ts";
import type { ProviderSettings } from "../provider/types.ts";
import { replayHeaders } from "./headers.ts";

/** Options of {@linkcode prepareReplay}. */
export interface PrepareOptions {
  /** Re-sign with the endpoint's secret and `now`. @default false */
  resign?: boolean;
  /** A new body (`--body-file`). */
  body?: Uint8Array;
  /** `path=value` changes to the JSON body (`--set`). @default [] */
  set?: readonly string[];
  /** The endpoint's signing settings from the config, when it has any. */
  settings?: ProviderSettings;
  /** Method the replay uses. */
  method: string;
  /** Clock. @default new Date() */
  now?: Date;
}

/** The event to send, and what was done to it. */
export interface PreparedReplay {
  event: CapturedEvent;
  /** Re-signed with this provider's scheme. */
  resigned?: string;
  /** Why the app is likely to reject the replay, when hooktap could not sign it. */
  warning?: string;
}

/** Sets `path` (`a.b[0].c`) in `root` to `value`. */
export function setJsonField(root: unknown, path: string, value: unknown): void {
  const keys = path.replace(/\[(\d+)\]/g, ".$1").split(".").filter((k) => k !== "");
  if (keys.length === 0) {
    throw new UsageError(`--set needs a field path before "=", like data.object.amount=5000`);
  }
  let at = root as Record<string, unknown>;
  for (const [i, key] of keys.entries()) {
    if (typeof at !== "object" || at === null) {
      throw new UsageError(
        `--set ${path}: "${keys.slice(0, i).join(".")}" is not an object or array in the body`,
      );
    }
    if (i === keys.length - 1) at[key] = value;
    else at = at[key] as Record<string, unknown>;
  }
}

function _applySets(body: Uint8Array, sets: readonly string[]): Uint8Array {
  const text = new TextDecoder().decode(body);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UsageError("--set changes a JSON body, and this body is not JSON; use --body-file instead");
  }
  for (const item of sets) {
    const eq = item.indexOf("=");
    if (eq <= 0) {
      throw new UsageError(`--set expects path=value, like data.object.amount=5000; got "${item}"`);
    }
    const raw = item.slice(eq + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch { /* a bare string */ }
    setJsonField(json, item.slice(0, eq), value);
  }
  return new TextEncoder().encode(JSON.stringify(json, null, /\n\s/.test(text) ? 2 : undefined));
}

/** The time (ms) a timestamped signature in `headers` was made, when one is there. */
export function signedTime(headers: readonly [string, string][]): number | undefined {
  const unix = (
    v: string | undefined,
  ) => (v !== undefined && /^\d+$/.test(v.trim()) ? Number(v.trim()) * 1000 : undefined);
  const iso = headerValue(headers, "twitch-eventsub-message-timestamp");
  return unix(headerValue(headers, "stripe-signature")?.match(/(?:^|,)\s*t=(\d+)/)?.[1]) ??
    unix(headerValue(headers, "x-slack-request-timestamp")) ??
    unix(headerValue(headers, "webhook-timestamp")) ??
    unix(headerValue(headers, "svix-timestamp")) ??
    unix(headerValue(headers, "x-zm-request-timestamp")) ??
    unix(headerValue(headers, "paddle-signature")?.match(/(?:^|;)ts=(\d+)/)?.[1]) ??
    (iso === undefined ? undefined : Date.parse(iso.replace(/(\.\d{3})\d+/, "$1")));
}

function _ago(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 120 ? `${s} s` : s < 7200 ? `${Math.round(s / 60)} min` : `${Math.round(s / 3600)} h`;
}

/** The precise reason the app will refuse an unsigned-again replay, or `undefined` if it will not. */
export function rejectionReason(
  event: CapturedEvent,
  changedBody: boolean,
  settings: ProviderSettings | undefined,
  now: Date,
): string | undefined {
  const provider = event.provider === undefined ? undefined : providerFacts(event.provider);
  if (provider === undefined || event.verdict?.status === "unsigned") return undefined;
  const title = provider.title;
  const fix = !provider.resigns
    ? `${title} signs with its private key, so only ${title} can sign a changed request`
    : `add the signing secret to endpoint "${event.endpoint}" in hooktap.config.ts ` +
      `(secret: Deno.env.get("${event.provider!.toUpperCase().replace(/-/g, "_")}_WEBHOOK_SECRET"), ` +
      "which needs --allow-env) and replay with --resign";
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

/**
 * The event to send for a replay.
 * @throws {UsageError} for a bad `--set`.
 * @throws {HooktapError} when `--resign` is asked but hooktap cannot sign.
 */
export async function prepareReplay(
  event: CapturedEvent,
  target: URL,
  options: PrepareOptions,
): Promise<PreparedReplay> {
  const now = options.now ?? new Date();
  let body = options.body ?? decodeBody(event);
  if ((options.set ?? []).length > 0) body = _applySets(body, options.set!);
  const changed = options.body !== undefined || (options.set ?? []).length > 0;
  const next: CapturedEvent = { ...event, ...encodeBody(body), bodySize: body.length };
  const settings = options.settings;
  const canSign = event.provider !== undefined && settings !== undefined && settings.secrets.length > 0 &&
    providerFacts(event.provider)?.resigns === true;
  if (options.resign || (changed && canSign)) {
    if (!canSign) {
      const why = rejectionReason(event, changed, settings, now) ??
        (event.provider === undefined
          ? "hooktap did not recognise a signature scheme on this event"
          : `endpoint "${event.endpoint}" has no secret in the config (the stored signature is still ` +
            "within the tolerance, so replaying without --resign works for now)");
      throw new HooktapError(`Cannot re-sign ${event.id}: ${why}.`);
    }
    // Loaded only to sign: the providers pull in node:crypto (~50 ms at start-up).
    const { resignRequest } = await import("../provider/resign.ts");
    const headers = await resignRequest(
      event.provider!,
      {
        method: options.method,
        url: target.href,
        headers: replayHeaders(event.headers),
        body,
      },
      settings!,
      now,
    );
    if (headerValue(event.headers, "content-type") === undefined && changed) {
      headers.push(["content-type", "application/json"]);
    }
    return { event: { ...next, headers }, resigned: event.provider! };
  }
  const warning = rejectionReason(event, changed, settings, now);
  return warning === undefined ? { event: next } : { event: next, warning };
}
