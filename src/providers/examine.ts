/**
 * The receiver's question to the providers: who sent this request, which
 * event is it, does its signature verify (and why not), and is it a URL
 * challenge to answer. Pure apart from `crypto.subtle` for asymmetric keys.
 * @module
 */
import type { Verdict } from "../event/record.ts";
import { generic } from "./generic/verify.ts";
import { genericHmac } from "./hmac/verify.ts";
import { providerNamed, PROVIDERS } from "./registry.ts";
import type { ChallengeAnswer, Provider, ProviderSettings, RequestView } from "./types.ts";

/** What hooktap makes of a request. */
export interface Examination {
  /** The provider's name, absent for a sender hooktap does not know. */
  provider?: string;
  /** The event type, when the request names one. */
  type?: string;
  /** The signature verdict. */
  verdict: Verdict;
  /** The built-in answer, when the request is a URL challenge. */
  challenge?: ChallengeAnswer;
}

/** Settings of an endpoint that declares nothing. */
export const NO_SETTINGS: ProviderSettings = { secrets: [], tolerance: 300, enforce: false };

/** The provider that sent `view`: the declared one, else the first that claims it. */
export function providerOf(view: RequestView, settings: ProviderSettings): Provider {
  if (settings.provider !== undefined) return providerNamed(settings.provider) ?? generic;
  if (settings.hmac !== undefined) return genericHmac;
  return PROVIDERS.find((p) => p.detect(view)) ?? generic;
}

/**
 * Examines one request against an endpoint's settings.
 *
 * @example
 * ```ts
 * import { createView, examineRequest } from "@hooktap/hooktap/testing";
 * const view = createView({
 *   method: "POST", path: "/gh", query: "", body: new TextEncoder().encode("{}"),
 *   headers: [["x-github-event", "ping"]], receivedAt: new Date(),
 * });
 * const result = await examineRequest(view, { secrets: [], tolerance: 300, enforce: false });
 * console.log(result.provider, result.type, result.verdict.status); // github ping unsigned
 * ```
 */
export async function examineRequest(view: RequestView, settings: ProviderSettings): Promise<Examination> {
  const provider = providerOf(view, settings);
  const out: Examination = { verdict: { status: "unsigned" } };
  if (provider !== generic) out.provider = provider.name;
  const type = provider.eventType(view);
  if (type !== undefined) out.type = type;
  const challenge = await provider.challenge?.(view, settings);
  if (challenge !== undefined) out.challenge = challenge;
  out.verdict = await provider.verify(view, settings);
  return out;
}
