/**
 * A real receiver's check for every triggerable provider: the provider's
 * official library where one exists (Stripe, Octokit, Svix/Standard
 * Webhooks, Twilio, discord-interactions, SendGrid, Paddle's SDK, Linear's
 * SDK), else the scheme as the provider documents it, written here
 * independently of src/providers/ (Slack, Shopify, Zoom, Twitch, Meta, X,
 * Dropbox, Telegram, Microsoft Graph's clientState, the generic HMAC).
 * Each answers whether a receiver would accept the request, age included
 * where the library or the provider's docs check it.
 * @module
 */
import { Buffer } from "node:buffer";
import { createHmac, timingSafeEqual } from "node:crypto";
import { verify as githubVerify } from "@octokit/webhooks-methods";
import { LinearWebhookClient } from "@linear/sdk/webhooks";
import { Paddle } from "@paddle/paddle-node-sdk";
import { EventWebhook } from "@sendgrid/eventwebhook";
import { verifyKey } from "discord-interactions";
import { Webhook as StandardWebhook } from "standardwebhooks";
import Stripe from "stripe";
import { Webhook as SvixWebhook } from "svix";
import twilioLib from "twilio";

/** A request as it arrived. */
export interface Arrived {
  url: string;
  headers: readonly [string, string][];
  body: Uint8Array;
}

/** What the receiver is configured with. */
export interface ReceiverKeys {
  secret: string;
  /** Public keys (hex or base64, as each library takes them) of Discord and SendGrid. */
  publicKeys: Record<string, string>;
}

const stripe = new Stripe("sk_test_hooktap");
const paddle = new Paddle("pdl_sdbx_apikey_01hooktap0000000000000000_hooktaphooktaphooktap_hk0");

function _hmac(algo: string, key: string, data: string, enc: "hex" | "base64"): string {
  return createHmac(algo, key).update(data).digest(enc);
}

function _same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Seconds since the unix time `ts` (a string of seconds). */
function _age(ts: string): number {
  return Math.abs(Date.now() / 1000 - Number(ts));
}

/** Which check `verify` uses for `provider`: the official library's name, or `documented scheme`. */
export const ORACLE: Readonly<Record<string, string>> = {
  github: "@octokit/webhooks-methods verify",
  stripe: "stripe constructEventAsync",
  "standard-webhooks": "standardwebhooks / svix Webhook.verify",
  twilio: "twilio validateRequest",
  discord: "discord-interactions verifyKey",
  sendgrid: "@sendgrid/eventwebhook verifySignature",
  paddle: "@paddle/paddle-node-sdk webhooks.unmarshal",
  linear: "@linear/sdk LinearWebhookClient.parseData",
  slack: "documented scheme (v0 HMAC, 5 min)",
  shopify: "documented scheme (base64 HMAC)",
  zoom: "documented scheme (v0 HMAC)",
  twitch: "documented scheme (HMAC of id+timestamp+body, 10 min)",
  meta: "documented scheme (X-Hub-Signature-256)",
  x: "documented scheme (base64 HMAC)",
  dropbox: "documented scheme (hex HMAC)",
  telegram: "documented scheme (secret token header)",
  msgraph: "documented scheme (clientState)",
  hmac: "the configured scheme (X-Signature: sha256=hex)",
};

/**
 * Whether a real receiver of `provider` accepts `r`.
 * @returns true or false; never throws (a library that throws refused it).
 */
export async function verify(provider: string, r: Arrived, keys: ReceiverKeys): Promise<boolean> {
  const text = new TextDecoder().decode(r.body);
  const headers = new Headers(r.headers as [string, string][]);
  const h = (n: string) => headers.get(n) ?? "";
  const s = keys.secret;
  try {
    switch (provider) {
      case "github":
        return await githubVerify(s, text, h("x-hub-signature-256"));
      case "stripe":
        await stripe.webhooks.constructEventAsync(text, h("stripe-signature"), s);
        return true;
      case "standard-webhooks": {
        const obj = Object.fromEntries(headers);
        if (headers.has("svix-id")) new SvixWebhook(s).verify(text, obj);
        else new StandardWebhook(s).verify(text, obj);
        return true;
      }
      case "twilio":
        return twilioLib.validateRequest(
          s,
          h("x-twilio-signature"),
          r.url,
          Object.fromEntries(new URLSearchParams(text)),
        );
      case "discord":
        return await verifyKey(
          text,
          h("x-signature-ed25519"),
          h("x-signature-timestamp"),
          keys.publicKeys.discord!,
        );
      case "sendgrid": {
        const lib = new EventWebhook();
        return lib.verifySignature(
          lib.convertPublicKeyToECDSA(keys.publicKeys.sendgrid!),
          text,
          h("x-twilio-email-event-webhook-signature"),
          h("x-twilio-email-event-webhook-timestamp"),
        );
      }
      case "paddle":
        await paddle.webhooks.unmarshal(text, s, h("paddle-signature"));
        return true;
      case "linear":
        new LinearWebhookClient(s).parseData(Buffer.from(r.body), h("linear-signature"));
        return true;
      case "slack": {
        const ts = h("x-slack-request-timestamp");
        return _age(ts) <= 300 &&
          _same(h("x-slack-signature"), `v0=${_hmac("sha256", s, `v0:${ts}:${text}`, "hex")}`);
      }
      case "shopify":
        return _same(h("x-shopify-hmac-sha256"), _hmac("sha256", s, text, "base64"));
      case "zoom": {
        const ts = h("x-zm-request-timestamp");
        return _age(ts) <= 300 &&
          _same(h("x-zm-signature"), `v0=${_hmac("sha256", s, `v0:${ts}:${text}`, "hex")}`);
      }
      case "twitch": {
        const id = h("twitch-eventsub-message-id");
        const ts = h("twitch-eventsub-message-timestamp");
        const age = (Date.now() - Date.parse(ts)) / 1000;
        return age <= 600 &&
          _same(
            h("twitch-eventsub-message-signature"),
            `sha256=${_hmac("sha256", s, id + ts + text, "hex")}`,
          );
      }
      case "meta":
        return _same(h("x-hub-signature-256"), `sha256=${_hmac("sha256", s, text, "hex")}`);
      case "x":
        return _same(h("x-twitter-webhooks-signature"), `sha256=${_hmac("sha256", s, text, "base64")}`);
      case "dropbox":
        return _same(h("x-dropbox-signature"), _hmac("sha256", s, text, "hex"));
      case "telegram":
        return _same(h("x-telegram-bot-api-secret-token"), s);
      case "msgraph": {
        const value = (JSON.parse(text) as { value: { clientState?: string }[] }).value;
        return value.length > 0 && value.every((n) => n.clientState !== undefined && _same(n.clientState, s));
      }
      case "hmac":
        return _same(h("x-signature"), `sha256=${_hmac("sha256", s, text, "hex")}`);
      default:
        throw new Error(`no receiver for ${provider}`);
    }
  } catch (error) {
    if (error instanceof Error && error.message.startsWith("no receiver")) throw error;
    return false;
  }
}
