/**
 * The events of the read side's generated store: realistic webhook
 * deliveries of several endpoints (GitHub pushes, Stripe and Shopify JSON,
 * Slack and Twilio forms, binary uploads), each with the headers a tunnel
 * forwards, and the config that names them.
 * @module
 */
import { BODY } from "./payload.ts";

/** The config written beside the store. */
export const STORE_CONFIG = `export default {
  port: 8787,
  endpoints: [
    { name: "github", path: "/github", method: "POST" },
    { name: "stripe", path: "/stripe", method: "POST" },
    { name: "shopify", path: "/shopify", method: "POST" },
    { name: "slack", path: "/slack", method: "POST" },
    { name: "twilio", path: "/twilio", method: "POST" },
    { name: "uploads", path: "/uploads", method: ["POST", "PUT"] },
    { name: "legacy", path: "/legacy", method: "POST" },
  ],
};
`;

const enc = new TextEncoder();
const hex = (n: number, len: number) => n.toString(16).padStart(len, "0").slice(-len);
const sig = (i: number) => hex(i * 2654435761, 8).repeat(8);

/** One endpoint's kind of event: how to make its headers and body. */
export type Kind = {
  endpoint: string;
  make(i: number, at: Date): { headers: [string, string][]; body: Uint8Array };
};

function common(path: string, type: string, ua: string, body: Uint8Array): [string, string][] {
  return [
    ["host", "abcd-203-0-113-7.ngrok-free.app"],
    ["user-agent", ua],
    ["content-length", String(body.length)],
    ["accept", "*/*"],
    ["content-type", type],
    ["x-forwarded-for", "192.0.2.44"],
    ["x-forwarded-host", "abcd-203-0-113-7.ngrok-free.app"],
    ["x-forwarded-proto", "https"],
    ["accept-encoding", "gzip"],
    ["x-original-path", path],
  ];
}

/** The endpoints' kinds in the order the store cycles through them (half are GitHub pushes). */
export function kinds(gh: [string, string][]): Kind[] {
  const github: Kind = {
    endpoint: "github",
    make(i) {
      // Pushes of two commits (1.6 KB), a third of them with a third commit.
      const extra = i % 3 === 0 ? 1 : 0;
      const text = extra === 0 ? BODY : BODY.replace(
        '"head_commit":null',
        `"head_commit":null,"extra_commits":${
          JSON.stringify(Array(extra).fill(JSON.parse(BODY).commits[0]))
        }`,
      );
      const body = enc.encode(text.replaceAll("4201", String(4200 + (i % 9000))));
      const headers = common("/github", "application/json", "GitHub-Hookshot/5e4a1f2", body);
      return { headers: [...headers, ...gh.slice(3, 8), ["X-Hub-Signature-256", `sha256=${sig(i)}`]], body };
    },
  };
  const stripe: Kind = {
    endpoint: "stripe",
    make(i, at) {
      const t = Math.floor(at.getTime() / 1000);
      const body = enc.encode(JSON.stringify({
        id: `evt_1Q${hex(i, 8)}kX9aLm`,
        object: "event",
        api_version: "2024-06-20",
        created: t,
        type: i % 3 ? "payment_intent.succeeded" : "invoice.paid",
        data: {
          object: {
            id: `pi_3P${hex(i, 10)}`,
            object: "payment_intent",
            amount: 1000 + (i % 90000),
            currency: "eur",
            customer: `cus_${hex(i * 7, 12)}`,
            description: "Subscription update",
            metadata: { order_id: String(100000 + i), plan: "pro-annual" },
            payment_method_types: ["card"],
            status: "succeeded",
            latest_charge: `ch_3P${hex(i, 10)}`,
          },
        },
        livemode: false,
        pending_webhooks: 1,
        request: { id: `req_${hex(i * 13, 14)}`, idempotency_key: crypto.randomUUID() },
      }));
      const headers = common(
        "/stripe",
        "application/json; charset=utf-8",
        "Stripe/1.0 (+https://stripe.com/docs/webhooks)",
        body,
      );
      return { headers: [...headers, ["stripe-signature", `t=${t},v1=${sig(i)}`]], body };
    },
  };
  const shopify: Kind = {
    endpoint: "shopify",
    make(i) {
      const line = (n: number) => ({
        id: 866550311766439000 + n,
        title: `Product ${n}`,
        quantity: 1 + (n % 3),
        price: "19.90",
        sku: `SKU-${n}`,
        vendor: "Acme",
      });
      const body = enc.encode(JSON.stringify({
        id: 820982911946154500 + i,
        email: `buyer${i}@example.com`,
        created_at: "2025-11-21T10:00:00-05:00",
        currency: "USD",
        total_price: "59.70",
        financial_status: "paid",
        line_items: [line(i), line(i + 1), line(i + 2), line(i + 3)],
        shipping_address: { city: "Ottawa", country: "Canada", zip: "K2P 1L4", address1: "123 Elgin St" },
        note: "Leave at the door",
      }));
      const headers = common("/shopify", "application/json", "Shopify-Captain-Hook", body);
      return {
        headers: [...headers, ["x-shopify-topic", "orders/create"], [
          "x-shopify-hmac-sha256",
          btoa(sig(i).slice(0, 32)),
        ], [
          "x-shopify-webhook-id",
          crypto.randomUUID(),
        ]],
        body,
      };
    },
  };
  const form = (endpoint: string, ua: string, fields: (i: number) => Record<string, string>): Kind => ({
    endpoint,
    make(i) {
      const body = enc.encode(new URLSearchParams(fields(i)).toString());
      return { headers: common(`/${endpoint}`, "application/x-www-form-urlencoded", ua, body), body };
    },
  });
  const slack = form("slack", "Slackbot 1.0 (+https://api.slack.com/robots)", (i) => ({
    payload: JSON.stringify({
      type: "block_actions",
      user: { id: `U${hex(i, 8)}` },
      actions: [{ value: "approve" }],
    }),
    token: "verification-token",
    team_id: "T0001",
  }));
  const twilio = form("twilio", "TwilioProxy/1.1", (i) => ({
    SmsSid: `SM${hex(i, 32)}`,
    From: "+15005550006",
    To: "+15005550001",
    Body: `Order ${i} confirmed`,
    NumMedia: "0",
  }));
  const uploads: Kind = {
    endpoint: "uploads",
    make(i) {
      const body = new Uint8Array(900);
      for (let k = 0; k < body.length; k++) body[k] = (i * 31 + k * 17) & 0xff; // not UTF-8: stored as base64
      return { headers: common("/uploads", "application/octet-stream", "curl/8.5.0", body), body };
    },
  };
  return [
    github,
    stripe,
    github,
    shopify,
    github,
    stripe,
    slack,
    github,
    twilio,
    github,
    stripe,
    shopify,
    github,
    slack,
    stripe,
    github,
    shopify,
    twilio,
    github,
    stripe,
    ...Array(5).fill(github),
    uploads,
  ];
}

/** The endpoint whose one and only event is near the start of the store. */
export function legacy(): Kind {
  return {
    endpoint: "legacy",
    make() {
      const body = enc.encode('{"event":"ping","source":"legacy-billing"}');
      return { headers: common("/legacy", "application/json", "legacy-billing/2.3", body), body };
    },
  };
}
