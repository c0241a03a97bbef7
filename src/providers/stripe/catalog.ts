/**
 * Stripe: every event type of the `stripe` package's declarations, each
 * `data.object` built from Stripe's own types (generated into ./stripe/ by
 * `deno task trigger:catalog:stripe`, one module per group, loaded only for
 * the event sent), test mode, the package's pinned API version. Ids are fresh
 * on each trigger and shared within a flow (a run's customer, payment intent,
 * charge, invoice and subscription refer to each other); each step of a flow
 * is a second later than the one before. Headers as Stripe sends them;
 * pretty-printed JSON body.
 * @module
 */
import { prefixed, unix, uuid } from "../_ids.ts";
import type { BuildContext, Draft, TriggerCatalog } from "../catalog_types.ts";
import {
  STRIPE_API_VERSION,
  STRIPE_API_VERSIONS,
  STRIPE_BASE_TIME,
  STRIPE_EVENTS,
  STRIPE_IDS,
  STRIPE_LOADERS,
  STRIPE_SOURCE,
} from "./samples/index.gen.ts";

/** How many events a run has built so far (a run's steps share its `id` function). */
const STEPS = new WeakMap<BuildContext["id"], number>();

/** A generated timestamp: within ~3 years of the generator's base time (amounts and counts are far below). */
const SPAN = 1e8;

/** `value` with the template ids made this run's ids and the timestamps moved to `t`. */
function _localize(value: unknown, ctx: BuildContext, shift: number): unknown {
  if (typeof value === "string") {
    const kind = STRIPE_IDS[value];
    if (kind !== undefined) return ctx.id(`stripe.${kind[0]}`, () => prefixed(kind[1]));
    // An id inside a longer string (a URL, a client secret).
    return value.replace(/\b[a-z_]+_[0-9A-Za-z]{24}(?![0-9A-Za-z])/g, (m) => {
      const k = STRIPE_IDS[m];
      return k === undefined ? m : ctx.id(`stripe.${k[0]}`, () => prefixed(k[1]));
    });
  }
  if (typeof value === "number") {
    return Math.abs(value - STRIPE_BASE_TIME) < SPAN && Number.isInteger(value) ? value + shift : value;
  }
  if (Array.isArray(value)) return value.map((v) => _localize(v, ctx, shift));
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = _localize(v, ctx, shift);
    return out;
  }
  return value;
}

/**
 * The event `type`'s `data` (its object, and `previous_attributes` for a change), as of unix time `t`.
 * @throws {Error} for a type the catalog does not have.
 */
export async function stripeEventData(type: string, ctx: BuildContext, t: number): Promise<
  { object: Record<string, unknown>; previous_attributes?: Record<string, unknown> }
> {
  const group = STRIPE_EVENTS[type];
  if (group === undefined) throw new Error(`no Stripe example for ${type}`);
  const entry = (await STRIPE_LOADERS[group]!()).OBJECTS[type]!;
  const shift = t - STRIPE_BASE_TIME;
  const object = _localize(entry.object, ctx, shift) as Record<string, unknown>;
  return entry.previous === undefined
    ? { object }
    : { object, previous_attributes: _localize(entry.previous, ctx, shift) as Record<string, unknown> };
}

/** The API version that moved invoice, subscription and payment fields (the stripe package's CHANGELOG, 18.0.0). */
const BASIL = "2025-03-31";

/**
 * An object as an API version before 2025-03-31.basil shapes it: an invoice's `paid`, `charge`,
 * `payment_intent` and `subscription` (basil moved the subscription under `parent`), a subscription's
 * `current_period_start/end` (moved to its items), a charge's and a payment intent's `invoice`.
 */
function _beforeBasil(object: Record<string, unknown>): void {
  if (object.object === "invoice") {
    const parent = object.parent as { subscription_details?: { subscription?: unknown } | null } | null;
    object.paid = object.status === "paid";
    object.paid_out_of_band = false;
    object.charge = null;
    object.payment_intent = null;
    object.subscription = parent?.subscription_details?.subscription ?? null;
    object.discount = null;
    delete object.parent;
  } else if (object.object === "subscription") {
    const item = (object.items as { data?: Record<string, unknown>[] } | undefined)?.data?.[0];
    object.current_period_start = item?.current_period_start ?? object.start_date;
    object.current_period_end = item?.current_period_end ?? object.start_date;
    object.discount = null;
  } else if (object.object === "charge" || object.object === "payment_intent") {
    object.invoice = null;
  }
}

async function build(event: string, ctx: BuildContext): Promise<Draft> {
  const step = STEPS.get(ctx.id) ?? 0;
  STEPS.set(ctx.id, step + 1);
  // Each step of a flow happens a second after the one before.
  const t = unix(ctx.now) + step;
  const data = await stripeEventData(event, ctx, t);
  const version = ctx.apiVersion ?? STRIPE_API_VERSION;
  if (version < BASIL) _beforeBasil(data.object);
  const body = {
    id: prefixed("evt"),
    object: "event",
    api_version: version,
    created: t,
    data,
    livemode: false,
    pending_webhooks: 1,
    request: { id: prefixed("req", 14), idempotency_key: uuid() },
    type: event,
  };
  return {
    headers: [
      ["User-Agent", "Stripe/1.0 (+https://stripe.com/docs/webhooks)"],
      ["Accept", "*/*; q=0.5, application/xml"],
      ["Cache-Control", "no-cache"],
      ["Content-Type", "application/json; charset=utf-8"],
      ["Stripe-Signature", ""],
    ],
    body: { kind: "json", value: body, indent: 2 },
  };
}

/** Stripe's catalog. */
export const catalog: TriggerCatalog = {
  provider: "stripe",
  source: STRIPE_SOURCE,
  entryOrigin: (event) => event in STRIPE_EVENTS ? { from: "schema" } : undefined,
  events: Object.keys(STRIPE_EVENTS),
  apiVersions: STRIPE_API_VERSIONS,
  sequences: {
    checkout: {
      description:
        "a Checkout payment, with the events `stripe trigger checkout.session.completed` emits: product, price, " +
        "customer, payment method, payment intent, charge, session completed",
      steps: [
        { event: "product.created" },
        { event: "price.created" },
        { event: "customer.created" },
        { event: "payment_intent.created" },
        { event: "payment_method.attached" },
        { event: "charge.succeeded" },
        { event: "payment_intent.succeeded" },
        { event: "checkout.session.completed" },
      ],
    },
    subscription: {
      description:
        "a subscription started: product, price, customer, payment method, subscription (incomplete), its first " +
        "invoice (billing_reason subscription_create) created, finalized, paid by a payment intent and " +
        "charge, subscription active",
      steps: [
        { event: "product.created" },
        { event: "price.created" },
        { event: "customer.created" },
        { event: "payment_method.attached" },
        { event: "customer.subscription.created", set: { "data.object.status": "incomplete" } },
        { event: "invoice.created" },
        { event: "invoice.finalized" },
        { event: "payment_intent.created" },
        { event: "charge.succeeded" },
        { event: "payment_intent.succeeded" },
        { event: "invoice.paid", set: { "data.object.billing_reason": "subscription_create" } },
        {
          event: "invoice.payment_succeeded",
          set: { "data.object.billing_reason": "subscription_create" },
        },
        {
          event: "customer.subscription.updated",
          set: { "data.previous_attributes": { status: "incomplete" } },
        },
      ],
    },
    "payment-failed": {
      description: "a card declined: payment intent created, charge failed, payment intent payment_failed",
      steps: [
        { event: "payment_intent.created" },
        { event: "charge.failed" },
        { event: "payment_intent.payment_failed" },
      ],
    },
    refund: {
      description: "a payment refunded: charge refunded (with its refund), refund created",
      steps: [
        { event: "charge.refunded" },
        { event: "refund.created" },
      ],
    },
  },
  // "Stripe attempts to deliver ... for up to three days with an exponential back off" (docs/webhooks).
  retries: [3600, 7200, 14400, 28800, 57600, 86400, 86400],
  retriesNote: "Stripe retries for up to 3 days with exponential backoff",
  build,
};
