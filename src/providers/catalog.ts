/**
 * What readers and the config need to know about each provider without
 * loading the providers (and node:crypto, ~50 ms at start-up): names,
 * aliases, titles, whether a replay must be re-signed and whether hooktap
 * can. Derived from the folders' facts (src/providers/index.ts,
 * metas.gen.ts); `catalog_test.ts` keeps them equal to the verifiers. Pure data.
 * @module
 */
import type { ProviderMeta } from "./facts.ts";
import { PROVIDER_METAS } from "./metas.gen.ts";

/** Default `tolerance`, seconds (Stripe's, Slack's and Standard Webhooks'). */
export const DEFAULT_TOLERANCE = 300;

/** One provider's facts. */
export type ProviderFacts = ProviderMeta;

/** Every provider by canonical name, in detection order. */
export const CATALOG: Readonly<Record<string, ProviderFacts>> = Object.fromEntries(
  Object.values(PROVIDER_METAS).map((m) => [m.name, m]),
);

/** Names a config's `provider` may take, with the aliases people use. */
export const PROVIDER_ALIASES: Readonly<Record<string, string>> = Object.fromEntries(
  Object.values(PROVIDER_METAS).flatMap((m) => m.aliases.map((a) => [a, m.name])),
);

/** The canonical name of a provider name or alias, or `undefined`. */
export function canonicalProvider(name: string): string | undefined {
  const key = PROVIDER_ALIASES[name.toLowerCase()] ?? name.toLowerCase();
  return key in CATALOG ? key : undefined;
}

/** The facts of a provider name or alias. */
export function providerFacts(name: string): ProviderFacts | undefined {
  const key = canonicalProvider(name);
  return key === undefined ? undefined : CATALOG[key];
}

/** The folder (src/providers/<folder>/) of a canonical name, or `undefined`. */
export function providerFolder(name: string): string | undefined {
  return Object.entries(PROVIDER_METAS).find(([, m]) => m.name === name)?.[0];
}

/** Whether `type` is one of `meta`'s `answeredByApp` (equal to an entry, or to its first word). */
export function answersByApp(meta: Pick<ProviderMeta, "answeredByApp"> | undefined, type: string): boolean {
  const list = meta?.answeredByApp;
  if (list === undefined) return false;
  const first = type.split(" ", 1)[0]!;
  return list.includes(type) || list.includes(first);
}
