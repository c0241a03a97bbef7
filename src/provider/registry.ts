/**
 * Every known provider, in detection order (the most specific first; the
 * generic fallback last). Adding a provider: its file, its test, one line here.
 * @module
 */
import { canonicalProvider } from "./catalog.ts";
import { discord } from "./discord.ts";
import { dropbox } from "./dropbox.ts";
import { generic, genericHmac } from "./generic_hmac.ts";
import { github } from "./github.ts";
import { linear } from "./linear.ts";
import { meta } from "./meta.ts";
import { msgraph } from "./msgraph.ts";
import { paddle } from "./paddle.ts";
import { sendgrid } from "./sendgrid.ts";
import { shopify } from "./shopify.ts";
import { slack } from "./slack.ts";
import { standardWebhooks } from "./standard_webhooks.ts";
import { stripe } from "./stripe.ts";
import { telegram } from "./telegram.ts";
import { twilio } from "./twilio.ts";
import { twitch } from "./twitch.ts";
import { twitter } from "./twitter.ts";
import type { Provider } from "./types.ts";
import { zoom } from "./zoom.ts";

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
