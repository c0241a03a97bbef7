/**
 * Paddle Billing: transaction, subscription and customer notifications,
 * `{event_id, event_type, occurred_at, notification_id, data}` as Paddle's
 * reference shows them, signed `Paddle-Signature: ts=...;h1=...`.
 * @module
 */
import { randomText } from "../_ids.ts";
import type { BuildContext, Draft, TriggerCatalog } from "../types.ts";

type Obj = Record<string, unknown>;

function _id(c: BuildContext, name: string, prefix: string): string {
  return c.id(`paddle.${name}`, () => `${prefix}_01${randomText(24, "0123456789abcdefghjkmnpqrstvwxyz")}`);
}

function _transaction(c: BuildContext, status: string): Obj {
  const at = c.now.toISOString();
  return {
    id: _id(c, "txn", "txn"),
    status,
    customer_id: _id(c, "ctm", "ctm"),
    subscription_id: status === "completed" ? _id(c, "sub", "sub") : null,
    currency_code: "USD",
    origin: "web",
    collection_mode: "automatic",
    items: [{ price: { id: _id(c, "pri", "pri"), product_id: _id(c, "pro", "pro") }, quantity: 1 }],
    details: { totals: { subtotal: "3000", tax: "0", total: "3000", currency_code: "USD" } },
    created_at: at,
    updated_at: at,
    billed_at: status === "created" ? null : at,
  };
}

function _subscription(c: BuildContext, status: string): Obj {
  const at = c.now.toISOString();
  return {
    id: _id(c, "sub", "sub"),
    status,
    customer_id: _id(c, "ctm", "ctm"),
    address_id: _id(c, "add", "add"),
    currency_code: "USD",
    billing_cycle: { frequency: 1, interval: "month" },
    current_billing_period: {
      starts_at: at,
      ends_at: new Date(c.now.getTime() + 30 * 86400e3).toISOString(),
    },
    items: [{
      status: "active",
      quantity: 1,
      price: { id: _id(c, "pri", "pri"), product_id: _id(c, "pro", "pro") },
    }],
    created_at: at,
    updated_at: at,
    canceled_at: status === "canceled" ? at : null,
  };
}

const EVENTS: Record<string, (c: BuildContext) => Obj> = {
  "transaction.created": (c) => _transaction(c, "draft"),
  "transaction.paid": (c) => _transaction(c, "paid"),
  "transaction.completed": (c) => _transaction(c, "completed"),
  "transaction.payment_failed": (c) => _transaction(c, "past_due"),
  "subscription.created": (c) => _subscription(c, "active"),
  "subscription.updated": (c) => _subscription(c, "active"),
  "subscription.canceled": (c) => _subscription(c, "canceled"),
  "customer.created": (c) => ({
    id: _id(c, "ctm", "ctm"),
    name: "Jenny Rosen",
    email: "jenny.rosen@example.com",
    status: "active",
    locale: "en",
    created_at: c.now.toISOString(),
    updated_at: c.now.toISOString(),
  }),
};

function build(event: string, ctx: BuildContext): Draft {
  const id = `evt_01${randomText(24, "0123456789abcdefghjkmnpqrstvwxyz")}`;
  return {
    headers: [
      ["Content-Type", "application/json"],
      ["Paddle-Signature", ""],
      ["User-Agent", "Paddle"],
    ],
    body: {
      kind: "json",
      value: {
        event_id: id,
        event_type: event,
        occurred_at: ctx.now.toISOString(),
        notification_id: `ntf_01${randomText(24, "0123456789abcdefghjkmnpqrstvwxyz")}`,
        data: EVENTS[event]!(ctx),
      },
    },
  };
}

/** Paddle's catalog. */
export const catalog: TriggerCatalog = {
  provider: "paddle",
  source: "hand-written",
  events: Object.keys(EVENTS),
  sequences: {
    checkout: {
      description: "a checkout: customer, transaction created, paid, completed, subscription created",
      steps: [
        { event: "customer.created" },
        { event: "transaction.created" },
        { event: "transaction.paid" },
        { event: "transaction.completed" },
        { event: "subscription.created" },
      ],
    },
  },
  retries: [60, 120, 300, 900, 1800, 3600, 7200, 14400, 28800, 57600],
  retriesNote: "Paddle retries with exponential backoff (up to 60 times over 3 days in live)",
  build,
};
