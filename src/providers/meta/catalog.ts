/**
 * Meta (WhatsApp Cloud API, Messenger, Instagram): `{object, entry: [...]}`
 * notifications signed `X-Hub-Signature-256` with the app secret, and the
 * verification GET (`subscribe`: `hub.mode`, `hub.verify_token`, `hub.challenge`).
 * @module
 */
import { digits, randomText, unix } from "../_ids.ts";
import type { BuildContext, Draft, TriggerCatalog } from "../catalog_types.ts";

type Obj = Record<string, unknown>;

function _wa(value: Obj): Obj {
  return {
    object: "whatsapp_business_account",
    entry: [{
      id: "102290129340398",
      changes: [{
        value: {
          messaging_product: "whatsapp",
          metadata: { display_phone_number: "15550783881", phone_number_id: "106540352242922" },
          ...value,
        },
        field: "messages",
      }],
    }],
  };
}

function _wamid(c: BuildContext): string {
  return c.id("meta.wamid", () => `wamid.${randomText(48)}`);
}

const EVENTS: Record<string, (c: BuildContext) => Obj> = {
  "whatsapp.message": (c) =>
    _wa({
      contacts: [{ profile: { name: "Jenny Rosen" }, wa_id: "16505551234" }],
      messages: [{
        from: "16505551234",
        id: _wamid(c),
        timestamp: String(unix(c.now)),
        text: { body: "Hello from hooktap" },
        type: "text",
      }],
    }),
  "whatsapp.status": (c) =>
    _wa({
      statuses: [{
        id: _wamid(c),
        status: "delivered",
        timestamp: String(unix(c.now)),
        recipient_id: "16505551234",
        conversation: { id: randomText(32, "0123456789abcdef"), origin: { type: "service" } },
        pricing: { billable: true, pricing_model: "CBP", category: "service" },
      }],
    }),
  "page.messages": (c) => ({
    object: "page",
    entry: [{
      id: "106540352242922",
      time: c.now.getTime(),
      messaging: [{
        sender: { id: String(digits(16)) },
        recipient: { id: "106540352242922" },
        timestamp: c.now.getTime(),
        message: { mid: `m_${randomText(40)}`, text: "Hello from hooktap" },
      }],
    }],
  }),
  "instagram.comments": (c) => ({
    object: "instagram",
    entry: [{
      id: "17841405822304914",
      time: unix(c.now),
      changes: [{
        field: "comments",
        value: {
          from: { id: "232323232", username: "jenny" },
          media: { id: "123123123", media_product_type: "FEED" },
          id: String(digits(17)),
          text: "Nice!",
        },
      }],
    }],
  }),
};

/**
 * Meta's verification of a callback URL: a GET with `hub.mode=subscribe`, the endpoint's verify token and a
 * challenge (digits) the answer must be, whole; unsigned.
 */
function _subscribe(ctx: BuildContext): Draft {
  const query = new URLSearchParams([
    ["hub.mode", "subscribe"],
    ["hub.challenge", String(digits(10))],
    ["hub.verify_token", ctx.verifyToken ?? ""],
  ]);
  return {
    method: "GET",
    headers: [["User-Agent", "facebookplatform/1.0 (+http://developers.facebook.com)"]],
    body: { kind: "raw", bytes: new Uint8Array() },
    query: query.toString(),
    unsigned: true,
  };
}

function build(event: string, ctx: BuildContext): Draft {
  if (event === "subscribe") return _subscribe(ctx);
  return {
    headers: [
      ["User-Agent", "facebookexternalua"],
      ["Content-Type", "application/json"],
      ["X-Hub-Signature", ""],
      ["X-Hub-Signature-256", ""],
    ],
    body: { kind: "json", value: EVENTS[event]!(ctx) },
  };
}

/** Meta's catalog. */
export const catalog: TriggerCatalog = {
  provider: "meta",
  source: "hand-written",
  events: [...Object.keys(EVENTS), "subscribe"],
  unsignedEvents: ["subscribe"],
  sequences: {
    whatsapp: {
      description: "a WhatsApp message, then its delivery status (same wamid)",
      steps: [{ event: "whatsapp.message" }, { event: "whatsapp.status" }],
    },
  },
  retries: [0, 60, 300, 1800, 3600, 7200, 14400, 28800, 43200, 86400],
  retriesNote: "Meta retries immediately, then with decreasing frequency over 36 hours",
  build,
};
