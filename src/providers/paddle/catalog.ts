/**
 * Paddle Billing: every notification Paddle's SDK knows (the event list and
 * each event's `data` type are generated from `@paddle/paddle-node-sdk`,
 * paddle/events.gen.ts), `{event_id, event_type, occurred_at,
 * notification_id, data}` with `data` shaped as the SDK's notification types
 * declare it, signed `Paddle-Signature: ts=...;h1=...`. A flow's events share
 * their ids (customer, address, price, product, transaction, subscription).
 * @module
 */
import { randomText, uuid } from "../_ids.ts";
import type { BuildContext, Draft, TriggerCatalog } from "../catalog_types.ts";
import { PADDLE_EVENTS, PADDLE_SOURCE } from "./samples/events.gen.ts";

type Obj = Record<string, unknown>;
const ULID = "0123456789abcdefghjkmnpqrstvwxyz";

function _id(c: BuildContext, name: string, prefix: string): string {
  return c.id(`paddle.${name}`, () => `${prefix}_01${randomText(24, ULID)}`);
}

function _at(c: BuildContext, days = 0): string {
  return new Date(c.now.getTime() + days * 86400e3).toISOString();
}

/** `o` without `keys` (where Paddle's notification type leaves them out). */
function _omit(o: Obj, ...keys: string[]): Obj {
  return Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)));
}

function _product(c: BuildContext, status = "active"): Obj {
  return {
    id: _id(c, "pro", "pro"),
    name: "Hooktap Pro",
    type: "standard",
    description: "Everything in Hooktap, for teams",
    tax_category: "standard",
    image_url: null,
    custom_data: null,
    status,
    created_at: _at(c, -30),
    updated_at: _at(c),
    import_meta: null,
  };
}

function _price(c: BuildContext, status = "active"): Obj {
  return {
    id: _id(c, "pri", "pri"),
    product_id: _id(c, "pro", "pro"),
    description: "Monthly",
    type: "standard",
    name: "Monthly",
    billing_cycle: { interval: "month", frequency: 1 },
    trial_period: null,
    tax_mode: "account_setting",
    unit_price: { amount: "3000", currency_code: "USD" },
    unit_price_overrides: [],
    quantity: { minimum: 1, maximum: 100 },
    status,
    custom_data: null,
    import_meta: null,
    created_at: _at(c, -30),
    updated_at: _at(c),
  };
}

function _customer(c: BuildContext): Obj {
  return {
    id: _id(c, "ctm", "ctm"),
    name: "Jenny Rosen",
    email: "jenny.rosen@example.com",
    marketing_consent: false,
    status: "active",
    custom_data: null,
    locale: "en",
    created_at: _at(c),
    updated_at: _at(c),
    import_meta: null,
  };
}

function _address(c: BuildContext): Obj {
  return {
    id: _id(c, "add", "add"),
    customer_id: _id(c, "ctm", "ctm"),
    description: "Head office",
    first_line: "4050 Jefferson Plaza, 41st Floor",
    second_line: null,
    city: "New York",
    postal_code: "10021",
    region: "NY",
    country_code: "US",
    custom_data: null,
    status: "active",
    created_at: _at(c),
    updated_at: _at(c),
    import_meta: null,
  };
}

function _business(c: BuildContext): Obj {
  return {
    id: _id(c, "biz", "biz"),
    customer_id: _id(c, "ctm", "ctm"),
    name: "Rosen Analytics Inc.",
    company_number: "123456789",
    tax_identifier: "US123456789",
    status: "active",
    contacts: [{ name: "Jenny Rosen", email: "jenny.rosen@example.com" }],
    created_at: _at(c),
    updated_at: _at(c),
    custom_data: null,
    import_meta: null,
  };
}

const TXN_STATUS: Record<string, string> = {
  created: "draft",
  updated: "ready",
  ready: "ready",
  billed: "billed",
  paid: "paid",
  completed: "completed",
  canceled: "canceled",
  past_due: "past_due",
  payment_failed: "ready",
  revised: "billed",
};

function _transaction(c: BuildContext, action: string): Obj {
  const status = TXN_STATUS[action] ?? "ready";
  const billed = ["billed", "paid", "completed", "past_due"].includes(status);
  const paid = status === "paid" || status === "completed";
  const failed = action === "payment_failed" || status === "past_due";
  const totals = { subtotal: "3000", discount: "0", tax: "0", total: "3000" };
  const attempt = {
    payment_attempt_id: c.id("paddle.attempt", uuid),
    stored_payment_method_id: c.id("paddle.stored_method", uuid),
    payment_method_id: _id(c, "paymtd", "paymtd"),
    amount: "3000",
    status: failed ? "error" : "captured",
    error_code: failed ? "declined" : null,
    method_details: {
      type: "card",
      card: {
        type: "visa",
        last4: "4242",
        expiry_month: 12,
        expiry_year: 2030,
        cardholder_name: "Jenny Rosen",
      },
      paypal: null,
      south_korea_local_card: null,
      underlying_details: null,
    },
    created_at: _at(c),
    captured_at: failed ? null : _at(c),
  };
  const period = { starts_at: _at(c), ends_at: _at(c, 30) };
  return {
    id: _id(c, "txn", "txn"),
    status,
    customer_id: _id(c, "ctm", "ctm"),
    address_id: _id(c, "add", "add"),
    business_id: null,
    custom_data: null,
    currency_code: "USD",
    origin: "web",
    subscription_id: paid ? _id(c, "sub", "sub") : null,
    invoice_id: billed ? _id(c, "inv", "inv") : null,
    invoice_number: billed ? "325-10566" : null,
    collection_mode: "automatic",
    discount_id: null,
    billing_details: null,
    billing_period: period,
    items: [{ price_id: _id(c, "pri", "pri"), price: _price(c), quantity: 1, proration: null }],
    details: {
      tax_rates_used: [{ tax_rate: "0", totals }],
      totals: {
        ...totals,
        grand_total: "3000",
        grand_total_tax: "0",
        fee: paid ? "200" : null,
        credit: "0",
        credit_to_balance: "0",
        balance: paid ? "0" : "3000",
        earnings: paid ? "2800" : null,
        currency_code: "USD",
      },
      adjusted_totals: {
        subtotal: "3000",
        tax: "0",
        total: "3000",
        grand_total: "3000",
        grand_total_tax: "0",
        fee: paid ? "200" : null,
        earnings: paid ? "2800" : null,
        currency_code: "USD",
        retained_fee: "0",
      },
      payout_totals: paid
        ? {
          ...totals,
          credit: "0",
          balance: "0",
          grand_total: "3000",
          grand_total_tax: "0",
          credit_to_balance: "0",
          fee: "200",
          earnings: "2800",
          currency_code: "USD",
          exchange_rate: "1",
          fee_rate: "0.05",
        }
        : null,
      adjusted_payout_totals: null,
      line_items: [{
        id: _id(c, "txnitm", "txnitm"),
        price_id: _id(c, "pri", "pri"),
        quantity: 1,
        proration: null,
        tax_rate: "0",
        unit_totals: totals,
        totals,
        product: _product(c),
      }],
    },
    payments: status === "draft" || status === "ready" && !failed ? [] : [attempt],
    checkout: { url: `https://example.com/pay?_ptxn=${_id(c, "txn", "txn")}` },
    created_at: _at(c),
    updated_at: _at(c),
    billed_at: billed ? _at(c) : null,
    revised_at: action === "revised" ? _at(c) : null,
  };
}

const SUB_STATUS: Record<string, string> = {
  activated: "active",
  canceled: "canceled",
  past_due: "past_due",
  paused: "paused",
  trialing: "trialing",
};

function _subscription(c: BuildContext, action: string, created: boolean): Obj {
  const status = SUB_STATUS[action] ?? "active";
  const live = status === "active" || status === "past_due" || status === "trialing";
  const sub: Obj = {
    id: _id(c, "sub", "sub"),
    status,
    ...(created ? { transaction_id: _id(c, "txn", "txn") } : {}),
    customer_id: _id(c, "ctm", "ctm"),
    address_id: _id(c, "add", "add"),
    business_id: null,
    currency_code: "USD",
    created_at: _at(c),
    updated_at: _at(c),
    started_at: _at(c),
    first_billed_at: status === "trialing" ? null : _at(c),
    next_billed_at: live ? _at(c, status === "trialing" ? 14 : 30) : null,
    paused_at: status === "paused" ? _at(c) : null,
    canceled_at: status === "canceled" ? _at(c) : null,
    discount: null,
    collection_mode: "automatic",
    billing_details: null,
    current_billing_period: live ? { starts_at: _at(c), ends_at: _at(c, 30) } : null,
    billing_cycle: { interval: "month", frequency: 1 },
    scheduled_change: null,
    items: [{
      status: status === "trialing" ? "trialing" : "active",
      quantity: 1,
      recurring: true,
      created_at: _at(c),
      updated_at: _at(c),
      previously_billed_at: status === "trialing" ? null : _at(c),
      next_billed_at: live ? _at(c, 30) : null,
      trial_dates: status === "trialing" ? { starts_at: _at(c), ends_at: _at(c, 14) } : null,
      price: _omit(_price(c), "created_at", "updated_at"),
      product: _omit(_product(c), "updated_at"),
    }],
    custom_data: null,
    import_meta: action === "imported" ? { external_id: "9b95b0b8", imported_from: "paddle_classic" } : null,
  };
  return sub;
}

function _adjustment(c: BuildContext, action: string): Obj {
  const totals = { subtotal: "3000", tax: "0", total: "3000", fee: "200", earnings: "2800" };
  return {
    id: _id(c, "adj", "adj"),
    action: "refund",
    type: "full",
    transaction_id: _id(c, "txn", "txn"),
    subscription_id: _id(c, "sub", "sub"),
    customer_id: _id(c, "ctm", "ctm"),
    reason: "error",
    credit_applied_to_balance: false,
    currency_code: "USD",
    status: action === "created" ? "pending_approval" : "approved",
    items: [{
      id: _id(c, "adjitm", "adjitm"),
      item_id: _id(c, "txnitm", "txnitm"),
      type: "full",
      amount: "3000",
      proration: null,
      totals: { ...totals, currency_code: "USD" },
    }],
    totals: { ...totals, currency_code: "USD", retained_fee: "0" },
    payout_totals: { ...totals, chargeback_fee: null, currency_code: "USD", retained_fee: "0" },
    created_at: _at(c),
    updated_at: _at(c),
  };
}

function _apiKey(c: BuildContext, action: string): Obj {
  const status = action === "expired" ? "expired" : action === "revoked" ? "revoked" : "active";
  return {
    id: _id(c, "apikey", "apikey"),
    name: "Production webhooks",
    description: "Reads customers and transactions",
    key: `pdl_live_apikey_01${randomText(24, ULID)}_${randomText(22)}_${randomText(3)}`.slice(0, 69),
    status,
    permissions: ["customer.read", "transaction.read"],
    expires_at: _at(c, action === "expiring" ? 7 : action === "expired" ? 0 : 90),
    rotatable: true,
    last_used_at: _at(c, -1),
    created_at: _at(c, -83),
    updated_at: _at(c),
  };
}

/** `data` of each of the SDK's notification types, by the event's action. */
const DATA: Record<string, (c: BuildContext, action: string) => Obj> = {
  IAddressNotificationResponse: (c) => _address(c),
  IAdjustmentNotificationResponse: _adjustment,
  IApiKeyNotificationResponse: _apiKey,
  IApiKeyExposureNotificationResponse: (c) => ({
    id: _id(c, "apikeyexp", "apikeyexp"),
    api_key_id: _id(c, "apikey", "apikey"),
    risk_level: "high",
    action_taken: "revoked",
    source: "github",
    reference: "https://github.com/example/app/blob/0b1c2d3/.env",
    description: "Found in a public repository",
    created_at: _at(c),
  }),
  IBusinessNotificationResponse: (c) => _business(c),
  IClientTokenNotificationResponse: (c, action) => ({
    id: _id(c, "ctkn", "ctkn"),
    token: `live_${randomText(27, "0123456789abcdef")}`,
    name: "Checkout",
    description: "Paddle.js on the pricing page",
    status: action === "revoked" ? "revoked" : "active",
    created_at: _at(c, -10),
    updated_at: _at(c),
    revoked_at: action === "revoked" ? _at(c) : null,
  }),
  ICustomerNotificationResponse: (c) => _customer(c),
  IDiscountNotificationResponse: (c) => ({
    id: _id(c, "dsc", "dsc"),
    discount_group_id: null,
    status: "active",
    description: "Launch week",
    enabled_for_checkout: true,
    code: "LAUNCH20",
    mode: "standard",
    type: "percentage",
    amount: "20",
    currency_code: null,
    recur: false,
    maximum_recurring_intervals: null,
    usage_limit: 1000,
    restrict_to: null,
    expires_at: _at(c, 7),
    custom_data: null,
    times_used: 0,
    created_at: _at(c),
    updated_at: _at(c),
    import_meta: null,
  }),
  IDiscountGroupNotificationResponse: (c) => ({
    id: _id(c, "dsg", "dsg"),
    name: "Launch",
    status: "active",
    created_at: _at(c),
    updated_at: _at(c),
    import_meta: null,
  }),
  IPaymentMethodNotificationResponse: (c) => ({
    id: _id(c, "paymtd", "paymtd"),
    customer_id: _id(c, "ctm", "ctm"),
    address_id: _id(c, "add", "add"),
    type: "card",
    origin: "saved_during_purchase",
    saved_at: _at(c),
    updated_at: _at(c),
  }),
  IPaymentMethodDeletedNotificationResponse: (c) => ({
    id: _id(c, "paymtd", "paymtd"),
    customer_id: _id(c, "ctm", "ctm"),
    address_id: _id(c, "add", "add"),
    deletion_reason: "api",
    type: "card",
    origin: "saved_during_purchase",
    saved_at: _at(c, -30),
    updated_at: _at(c),
  }),
  IPayoutNotificationResponse: (c, action) => ({
    id: _id(c, "payout", "payout"),
    remittance_reference: "PADDLE-1234567",
    status: action === "paid" ? "paid" : "unpaid",
    amount: "112800",
    currency_code: "USD",
  }),
  IPriceNotificationResponse: (c) => _price(c),
  IProductNotificationResponse: (c) => _omit(_product(c), "updated_at"),
  IReportNotificationResponse: (c, action) => ({
    id: _id(c, "rep", "rep"),
    status: action === "created" ? "pending" : "ready",
    rows: action === "created" ? null : 42,
    type: "transactions",
    filters: [{ name: "updated_at", operator: "lt", value: _at(c) }],
    expires_at: action === "created" ? null : _at(c, 14),
    created_at: _at(c),
  }),
  ISubscriptionCreatedNotificationResponse: (c, action) => _subscription(c, action, true),
  ISubscriptionNotificationResponse: (c, action) => _subscription(c, action, false),
  ITransactionNotificationResponse: _transaction,
};

const TYPES = new Map<string, string>(PADDLE_EVENTS.map(([event, type]) => [event, type]));

function build(event: string, ctx: BuildContext): Draft {
  const type = TYPES.get(event)!;
  const action = event.slice(event.indexOf(".") + 1);
  const make = DATA[type];
  if (make === undefined) {
    throw new Error(`no Paddle payload for ${type} (${event}): update catalog/paddle.ts`);
  }
  return {
    headers: [
      ["Content-Type", "application/json"],
      ["Paddle-Signature", ""],
      ["User-Agent", "Paddle"],
    ],
    body: {
      kind: "json",
      value: {
        event_id: `evt_01${randomText(24, ULID)}`,
        event_type: event,
        occurred_at: ctx.now.toISOString(),
        notification_id: `ntf_01${randomText(24, ULID)}`,
        data: make(ctx, action),
      },
    },
  };
}

/** Paddle's catalog. */
export const catalog: TriggerCatalog = {
  provider: "paddle",
  source: PADDLE_SOURCE,
  events: PADDLE_EVENTS.map(([event]) => event),
  sequences: {
    checkout: {
      description:
        "a checkout: customer, address, transaction created, ready, paid, subscription created, completed",
      steps: [
        { event: "customer.created" },
        { event: "address.created" },
        { event: "transaction.created" },
        { event: "transaction.ready" },
        { event: "transaction.paid" },
        { event: "subscription.created" },
        { event: "transaction.completed" },
      ],
    },
  },
  retries: [60, 120, 300, 900, 1800, 3600, 7200, 14400, 28800, 57600],
  retriesNote: "Paddle retries with exponential backoff (up to 60 times over 3 days in live)",
  build,
};
