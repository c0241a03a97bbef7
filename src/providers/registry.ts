/**
 * Every known provider, in detection order (the most specific first; the
 * generic fallback last). Adding a provider: its file, its test, one line here.
 * @module
 */
import { canonicalProvider } from "./catalog.ts";
import { discord } from "./discord/verify.ts";
import { dropbox } from "./dropbox/verify.ts";
import { generic, genericHmac } from "./hmac/verify.ts";
import { github } from "./github/verify.ts";
import { linear } from "./linear/verify.ts";
import { meta } from "./meta/verify.ts";
import { msgraph } from "./msgraph/verify.ts";
import { paddle } from "./paddle/verify.ts";
import { sendgrid } from "./sendgrid/verify.ts";
import { shopify } from "./shopify/verify.ts";
import { slack } from "./slack/verify.ts";
import { standardWebhooks } from "./standard_webhooks/verify.ts";
import { stripe } from "./stripe/verify.ts";
import { telegram } from "./telegram/verify.ts";
import { twilio } from "./twilio/verify.ts";
import { twitch } from "./twitch/verify.ts";
import { twitter } from "./x/verify.ts";
import type { Provider } from "./types.ts";
import { zoom } from "./zoom/verify.ts";

/** The providers, in the order they are tried. */
export const PROVIDERS: readonly Provider[] = [
  github,
  stripe,
  shopify,
  slack,
  standardWebhooks,
  twilio,
  zoom,
  paddle,
  linear,
  discord,
  sendgrid,
  telegram,
  twitch,
  meta,
  msgraph,
  twitter,
  dropbox,
  genericHmac,
  generic,
];

/** The provider of a name or alias, or `undefined`. */
export function providerNamed(name: string): Provider | undefined {
  const key = canonicalProvider(name);
  return PROVIDERS.find((p) => p.name === key);
}
