/**
 * What `dev`'s delivery line says of the app's answer to a provider's URL challenge (Slack's
 * `url_verification`, Discord's PING, Zoom's `endpoint.url_validation`, Twitch's, Meta's `hub.challenge`, ...):
 * hooktap answered the sender itself, in queue and relay mode alike, and the app got the request after. Without
 * hooktap the app's answer is what the provider checks, so the line says whether it agrees with hooktap's.
 * Provider-independent: the two answers are compared (same text, same JSON, or the challenge alone where
 * hooktap answered `{"challenge": ...}`, as Slack also takes).
 * @module
 */
import type { CapturedEvent } from "../event/record.ts";
import type { DeliveryRecord } from "../event/delivery.ts";
import { answersByApp, providerFacts } from "../providers/catalog.ts";

function _json(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function _same(a: unknown, b: unknown): boolean {
  if (typeof a !== "object" || a === null || typeof b !== "object" || b === null) return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length &&
    ka.every((k) => _same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** Whether the app's answer text carries what hooktap's did. */
export function agrees(hooktap: string, app: string): boolean {
  const mine = hooktap.trim();
  const theirs = app.trim();
  if (mine === theirs) return true;
  const a = _json(mine);
  if (a !== undefined && _same(a, _json(theirs))) return true;
  // Slack takes its challenge back as JSON, as the body, or as a form field.
  const only = typeof a === "object" && a !== null && Object.keys(a).length === 1
    ? (a as Record<string, unknown>).challenge
    : undefined;
  return typeof only === "string" &&
    (theirs === only || new URLSearchParams(theirs).get("challenge") === only);
}

/**
 * The note for the app's answer (`record`) to `event` when hooktap answered its challenge with a 2xx, else
 * `undefined`: `agrees` true when the app answered the same, else the sentence saying it would fail.
 */
export function challengeNote(
  event: Pick<CapturedEvent, "provider" | "response"> | undefined,
  record: DeliveryRecord,
): { agrees: boolean; text: string } | undefined {
  const r = event?.response;
  if (r?.source !== "challenge" || r.status < 200 || r.status > 299 || record.status === undefined) {
    return undefined;
  }
  if (record.bodyEncoding === "base64" || record.truncated === true) return undefined;
  const title = (event!.provider === undefined ? undefined : providerFacts(event!.provider)?.title) ??
    "the sender";
  // A status other than 200 is part of the answer (Discord's webhook event PING: 204).
  const status = r.status === 200 ? record.status >= 200 && record.status < 300 : record.status === r.status;
  const ok = status && agrees(r.body ?? "", record.body ?? "");
  const body = r.body === undefined || r.body === "" ? " (no body)" : ` ${r.body.slice(0, 120)}`;
  return ok ? { agrees: true, text: `(hooktap answered ${title}'s challenge; your app's answer agrees)` } : {
    agrees: false,
    text:
      `— hooktap answered ${title}'s challenge, and your app's answer differs: without hooktap ${title} ` +
      `would refuse the URL (hooktap's answer: ${r.status}${body})`,
  };
}

/**
 * The note for an app's answer to a request its sender shows the answer of (a Discord interaction, a Slack
 * slash command) that was queued (`source: "forward"`): the sender got hooktap's own 200, so it failed there,
 * whatever the app answered. `undefined` otherwise.
 */
export function queuedAnswerNote(
  event: Pick<CapturedEvent, "provider" | "type" | "response"> | undefined,
  record: DeliveryRecord,
): string | undefined {
  if (record.source !== "forward" || event?.provider === undefined || event.type === undefined) {
    return undefined;
  }
  if (event.response !== undefined) return undefined; // hooktap answered something else on purpose
  const facts = providerFacts(event.provider);
  if (facts === undefined || !answersByApp(facts, event.type)) return undefined;
  return `— ${facts.title} got hooktap's 200, not this answer, and needs your app's for ${event.type} ` +
    `(${facts.answeredByAppLost ?? "your app's answer reaches no one"}): forward with mode: "relay"`;
}
