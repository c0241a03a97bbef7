/**
 * Standard Webhooks and Svix: the spec's `webhook-*` headers (or Svix's
 * `svix-*` for events named `svix:...`), a JSON body `{type, timestamp, data}`
 * as the spec's examples show. Signed `v1` with the endpoint's `whsec_`
 * secret, or `v1a` (Ed25519) with hooktap's trigger key.
 * @module
 */
import { prefixed, randomText } from "../_ids.ts";
import type { BuildContext, Draft, TriggerCatalog } from "../catalog_types.ts";

type Obj = Record<string, unknown>;

const EVENTS: Record<string, (ctx: BuildContext) => Obj> = {
  "user.created": (c) => ({
    id: c.id("sw.user", () => prefixed("user", 22)),
    email: "jenny.rosen@example.com",
    name: "Jenny Rosen",
  }),
  "user.updated": (c) => ({
    id: c.id("sw.user", () => prefixed("user", 22)),
    email: "jenny@example.com",
    name: "Jenny Rosen",
  }),
  "invoice.paid": (c) => ({
    id: prefixed("inv", 22),
    customer: c.id("sw.user", () => prefixed("user", 22)),
    amount: 2000,
    currency: "usd",
  }),
  "message.attempt.exhausted": (c) => ({
    appId: prefixed("app", 27),
    appUid: "unique-app-identifier",
    endpointId: prefixed("ep", 27),
    msgId: prefixed("msg", 27),
    msgEventId: null,
    lastAttempt: { id: prefixed("atmpt", 27), timestamp: c.now.toISOString(), responseStatusCode: 500 },
  }),
};

function build(event: string, ctx: BuildContext): Draft {
  const svix = event.startsWith("svix:");
  const type = svix ? event.slice(5) : event;
  const p = svix ? "svix" : "webhook";
  return {
    headers: [
      ["Content-Type", "application/json"],
      ["User-Agent", svix ? "Svix-Webhooks/1.43.0" : "Standard-Webhooks"],
      [`${p}-id`, `msg_${randomText(27)}`],
      [`${p}-timestamp`, ""],
      [`${p}-signature`, ""],
    ],
    body: { kind: "json", value: { type, timestamp: ctx.now.toISOString(), data: EVENTS[type]!(ctx) } },
    deliveryHeader: `${p}-id`,
  };
}

const NAMES = Object.keys(EVENTS);

/** The Standard Webhooks / Svix catalog. */
export const catalog: TriggerCatalog = {
  provider: "standard-webhooks",
  source: "hand-written",
  events: [...NAMES, ...NAMES.map((n) => `svix:${n}`)],
  sequences: {
    user: {
      description: "a user created, then updated (same user id)",
      steps: [{ event: "user.created" }, { event: "user.updated" }],
    },
  },
  // docs.svix.com/retries: the first attempt immediately, then each retry after the previous one fails:
  // 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. `retries` holds the waits before each RETRY (the first
  // delivery is always sent at once), so Svix's "Immediately" is not in it.
  retries: [5, 300, 1800, 7200, 18000, 36000, 36000],
  retriesNote:
    "Svix's schedule: the first attempt at once, then retries after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h",
  build,
};
