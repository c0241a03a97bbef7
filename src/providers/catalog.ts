/**
 * What readers and the config need to know about each provider without
 * loading the providers (and node:crypto, ~50 ms at start-up): names,
 * aliases, titles, whether a replay must be re-signed and whether hooktap
 * can. `catalog_test.ts` keeps it equal to the registry. Pure data.
 * @module
 */

/** One provider's facts. */
export interface ProviderFacts {
  readonly title: string;
  /** It signs a timestamp: an old replay is refused unless re-signed. */
  readonly timestamped: boolean;
  /** hooktap can re-sign its requests with the endpoint's secret. */
  readonly resigns: boolean;
}

/** Every provider by name, in the registry's order. */
export const CATALOG: Readonly<Record<string, ProviderFacts>> = {
  github: { title: "GitHub", timestamped: false, resigns: true },
  stripe: { title: "Stripe", timestamped: true, resigns: true },
  shopify: { title: "Shopify", timestamped: false, resigns: true },
  slack: { title: "Slack", timestamped: true, resigns: true },
  "standard-webhooks": { title: "Standard Webhooks / Svix", timestamped: true, resigns: true },
  twilio: { title: "Twilio", timestamped: false, resigns: true },
  zoom: { title: "Zoom", timestamped: true, resigns: true },
  paddle: { title: "Paddle", timestamped: true, resigns: true },
  linear: { title: "Linear", timestamped: false, resigns: true },
  discord: { title: "Discord", timestamped: false, resigns: false },
  sendgrid: { title: "SendGrid", timestamped: false, resigns: false },
  telegram: { title: "Telegram", timestamped: false, resigns: true },
  twitch: { title: "Twitch EventSub", timestamped: true, resigns: true },
  meta: { title: "Meta", timestamped: false, resigns: true },
  msgraph: { title: "Microsoft Graph", timestamped: false, resigns: false },
  x: { title: "X (Twitter)", timestamped: false, resigns: true },
  dropbox: { title: "Dropbox", timestamped: false, resigns: true },
  hmac: { title: "HMAC (configured)", timestamped: false, resigns: true },
  generic: { title: "Unknown sender", timestamped: false, resigns: false },
};

/** Names a config's `provider` may take, with the aliases people use. */
export const PROVIDER_ALIASES: Readonly<Record<string, string>> = {
  svix: "standard-webhooks",
  standardwebhooks: "standard-webhooks",
  facebook: "meta",
  whatsapp: "meta",
  instagram: "meta",
  twitter: "x",
  "microsoft-graph": "msgraph",
  graph: "msgraph",
};

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
