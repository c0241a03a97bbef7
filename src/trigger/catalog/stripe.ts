/**
 * Stripe: the most used event types, objects shaped as in Stripe's API
 * reference (api version 2024-06-20), test mode. Ids are fresh on each
 * trigger and shared within a flow: the checkout sequence's session,
 * payment intent, charge, customer, invoice and subscription refer to each
 * other. Headers as Stripe sends them; pretty-printed JSON body.
 * @module
 */
import { prefixed, unix, uuid } from "../_ids.ts";
import type { BuildContext, Draft, TriggerCatalog } from "../types.ts";

type Obj = Record<string, unknown>;
const API_VERSION = "2024-06-20";

function _ids(ctx: BuildContext) {
  const id = (name: string, prefix: string) => ctx.id(`stripe.${name}`, () => prefixed(prefix));
  return {
    customer: id("customer", "cus"),
    pi: id("pi", "pi"),
    charge: id("charge", "ch"),
    pm: id("pm", "pm"),
    session: id("session", "cs_test"),
    invoice: id("invoice", "in"),
    sub: id("sub", "sub"),
    si: id("si", "si"),
    product: id("product", "prod"),
    price: id("price", "price"),
    seti: id("seti", "seti"),
    refund: id("refund", "re"),
    dispute: id("dispute", "dp"),
    payout: id("payout", "po"),
    txn: id("txn", "txn"),
  };
}

type Ids = ReturnType<typeof _ids>;

function customer(ids: Ids, t: number): Obj {
  return {
    id: ids.customer,
    object: "customer",
    address: null,
    balance: 0,
    created: t,
    currency: "usd",
    default_source: null,
    delinquent: false,
    description: null,
    discount: null,
    email: "jenny.rosen@example.com",
    invoice_prefix: "7B1C3A2F",
    invoice_settings: {
      custom_fields: null,
      default_payment_method: ids.pm,
      footer: null,
      rendering_options: null,
    },
    livemode: false,
    metadata: {},
    name: "Jenny Rosen",
    phone: null,
    preferred_locales: [],
    shipping: null,
    tax_exempt: "none",
    test_clock: null,
  };
}

function paymentIntent(ids: Ids, t: number, status: string): Obj {
  const paid = status === "succeeded";
  return {
    id: ids.pi,
    object: "payment_intent",
    amount: 2000,
    amount_capturable: 0,
    amount_received: paid ? 2000 : 0,
    application: null,
    application_fee_amount: null,
    automatic_payment_methods: { allow_redirects: "always", enabled: true },
    canceled_at: status === "canceled" ? t : null,
    cancellation_reason: status === "canceled" ? "requested_by_customer" : null,
    capture_method: "automatic_async",
    client_secret: `${ids.pi}_secret_${ids.pi.slice(3, 15)}`,
    confirmation_method: "automatic",
    created: t,
    currency: "usd",
    customer: ids.customer,
    description: null,
    invoice: ids.invoice,
    last_payment_error: status === "requires_payment_method"
      ? {
        code: "card_declined",
        decline_code: "generic_decline",
        doc_url: "https://stripe.com/docs/error-codes/card-declined",
        message: "Your card was declined.",
        payment_method: { id: ids.pm, object: "payment_method", type: "card" },
        type: "card_error",
      }
      : null,
    latest_charge: status === "requires_payment_method" || status === "requires_action" ? null : ids.charge,
    livemode: false,
    metadata: { order_id: "6735" },
    next_action: status === "requires_action"
      ? { type: "use_stripe_sdk", use_stripe_sdk: { type: "three_d_secure_redirect", source: "src_test" } }
      : null,
    on_behalf_of: null,
    payment_method: ids.pm,
    payment_method_options: { card: { request_three_d_secure: "automatic" } },
    payment_method_types: ["card"],
    processing: null,
    receipt_email: "jenny.rosen@example.com",
    setup_future_usage: null,
    shipping: null,
    statement_descriptor: null,
    status,
    transfer_data: null,
    transfer_group: null,
  };
}

function charge(ids: Ids, t: number, status: string, refunded = false, captured = true): Obj {
  return {
    id: ids.charge,
    object: "charge",
    amount: 2000,
    amount_captured: captured ? 2000 : 0,
    amount_refunded: refunded ? 2000 : 0,
    application_fee_amount: null,
    balance_transaction: status === "succeeded" ? ids.txn : null,
    billing_details: {
      address: { city: null, country: "US", line1: null, line2: null, postal_code: "42424", state: null },
      email: "jenny.rosen@example.com",
      name: "Jenny Rosen",
      phone: null,
    },
    captured,
    created: t,
    currency: "usd",
    customer: ids.customer,
    description: null,
    disputed: false,
    failure_code: status === "failed" ? "card_declined" : null,
    failure_message: status === "failed" ? "Your card was declined." : null,
    invoice: ids.invoice,
    livemode: false,
    metadata: { order_id: "6735" },
    outcome: {
      network_status: status === "failed" ? "declined_by_network" : "approved_by_network",
      reason: status === "failed" ? "generic_decline" : null,
      risk_level: "normal",
      risk_score: 32,
      seller_message: status === "failed"
        ? "The bank did not return any further details."
        : "Payment complete.",
      type: status === "failed" ? "issuer_declined" : "authorized",
    },
    paid: status === "succeeded",
    payment_intent: ids.pi,
    payment_method: ids.pm,
    payment_method_details: {
      card: {
        brand: "visa",
        checks: { address_line1_check: null, address_postal_code_check: "pass", cvc_check: "pass" },
        country: "US",
        exp_month: 8,
        exp_year: 2030,
        fingerprint: "Xt5EWLLDS7FJjR1c",
        funding: "credit",
        last4: "4242",
        network: "visa",
      },
      type: "card",
    },
    receipt_email: "jenny.rosen@example.com",
    receipt_url: `https://pay.stripe.com/receipts/payment/${ids.charge}`,
    refunded,
    status,
  };
}

function paymentMethod(ids: Ids, t: number): Obj {
  return {
    id: ids.pm,
    object: "payment_method",
    billing_details: {
      address: { country: "US", postal_code: "42424" },
      email: null,
      name: null,
      phone: null,
    },
    card: {
      brand: "visa",
      country: "US",
      exp_month: 8,
      exp_year: 2030,
      fingerprint: "Xt5EWLLDS7FJjR1c",
      funding: "credit",
      last4: "4242",
      networks: { available: ["visa"], preferred: null },
    },
    created: t,
    customer: ids.customer,
    livemode: false,
    metadata: {},
    type: "card",
  };
}

function price(ids: Ids, t: number): Obj {
  return {
    id: ids.price,
    object: "price",
    active: true,
    billing_scheme: "per_unit",
    created: t,
    currency: "usd",
    livemode: false,
    lookup_key: null,
    metadata: {},
    nickname: null,
    product: ids.product,
    recurring: { aggregate_usage: null, interval: "month", interval_count: 1, usage_type: "licensed" },
    tax_behavior: "unspecified",
    type: "recurring",
    unit_amount: 2000,
    unit_amount_decimal: "2000",
  };
}

function product(ids: Ids, t: number): Obj {
  return {
    id: ids.product,
    object: "product",
    active: true,
    created: t,
    default_price: ids.price,
    description: "Monthly subscription to the Pro plan",
    images: [],
    livemode: false,
    metadata: {},
    name: "Pro plan",
    type: "service",
    updated: t,
  };
}

function subscription(ids: Ids, t: number, status: string): Obj {
  const start = t - (status === "trialing" ? 0 : 86400);
  return {
    id: ids.sub,
    object: "subscription",
    application: null,
    billing_cycle_anchor: start,
    cancel_at: null,
    cancel_at_period_end: false,
    canceled_at: status === "canceled" ? t : null,
    collection_method: "charge_automatically",
    created: start,
    currency: "usd",
    current_period_end: start + 30 * 86400,
    current_period_start: start,
    customer: ids.customer,
    default_payment_method: ids.pm,
    ended_at: status === "canceled" ? t : null,
    items: {
      object: "list",
      data: [{
        id: ids.si,
        object: "subscription_item",
        created: start,
        metadata: {},
        price: price(ids, start),
        quantity: 1,
        subscription: ids.sub,
      }],
      has_more: false,
      total_count: 1,
      url: `/v1/subscription_items?subscription=${ids.sub}`,
    },
    latest_invoice: ids.invoice,
    livemode: false,
    metadata: {},
    start_date: start,
    status,
    trial_end: status === "trialing" ? t + 3 * 86400 : null,
    trial_start: status === "trialing" ? t - 11 * 86400 : null,
  };
}

function invoice(ids: Ids, t: number, status: string, paid: boolean): Obj {
  return {
    id: status === "upcoming" ? null : ids.invoice,
    object: "invoice",
    account_country: "US",
    account_name: "Acme Inc.",
    amount_due: 2000,
    amount_paid: paid ? 2000 : 0,
    amount_remaining: paid ? 0 : 2000,
    attempt_count: status === "open" && !paid ? 1 : paid ? 1 : 0,
    attempted: paid || status === "open",
    billing_reason: "subscription_cycle",
    charge: paid ? ids.charge : null,
    collection_method: "charge_automatically",
    created: t,
    currency: "usd",
    customer: ids.customer,
    customer_email: "jenny.rosen@example.com",
    customer_name: "Jenny Rosen",
    hosted_invoice_url: status === "draft" || status === "upcoming"
      ? null
      : `https://invoice.stripe.com/i/acct_test/${ids.invoice}`,
    lines: {
      object: "list",
      data: [{
        id: `il_${ids.invoice.slice(3)}`,
        object: "line_item",
        amount: 2000,
        currency: "usd",
        description: "1 × Pro plan (at $20.00 / month)",
        period: { end: t + 30 * 86400, start: t },
        price: price(ids, t),
        quantity: 1,
        subscription: ids.sub,
        type: "subscription",
      }],
      has_more: false,
      total_count: 1,
      url: `/v1/invoices/${ids.invoice}/lines`,
    },
    livemode: false,
    metadata: {},
    next_payment_attempt: paid ? null : t + 3 * 86400,
    number: status === "draft" || status === "upcoming" ? null : "7B1C3A2F-0001",
    paid,
    payment_intent: status === "draft" || status === "upcoming" ? null : ids.pi,
    period_end: t,
    period_start: t - 30 * 86400,
    status: status === "upcoming" ? "draft" : status,
    subscription: ids.sub,
    subtotal: 2000,
    total: 2000,
  };
}

function session(ids: Ids, t: number, status: string, paymentStatus: string): Obj {
  return {
    id: ids.session,
    object: "checkout.session",
    after_expiration: null,
    allow_promotion_codes: null,
    amount_subtotal: 2000,
    amount_total: 2000,
    automatic_tax: { enabled: false, liability: null, status: null },
    billing_address_collection: null,
    cancel_url: "https://example.com/cancel",
    client_reference_id: null,
    created: t - 60,
    currency: "usd",
    customer: ids.customer,
    customer_creation: "always",
    customer_details: {
      address: { city: null, country: "US", line1: null, line2: null, postal_code: "42424", state: null },
      email: "jenny.rosen@example.com",
      name: "Jenny Rosen",
      phone: null,
      tax_exempt: "none",
      tax_ids: [],
    },
    customer_email: null,
    expires_at: t + 86340,
    invoice: null,
    livemode: false,
    metadata: { order_id: "6735" },
    mode: "payment",
    payment_intent: ids.pi,
    payment_method_types: ["card"],
    payment_status: paymentStatus,
    status,
    submit_type: null,
    subscription: null,
    success_url: "https://example.com/success",
    total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: 0 },
    url: status === "open" ? `https://checkout.stripe.com/c/pay/${ids.session}` : null,
  };
}

function setupIntent(ids: Ids, t: number): Obj {
  return {
    id: ids.seti,
    object: "setup_intent",
    application: null,
    cancellation_reason: null,
    client_secret: `${ids.seti}_secret_${ids.seti.slice(5, 17)}`,
    created: t,
    customer: ids.customer,
    description: null,
    last_setup_error: null,
    latest_attempt: `setatt_${ids.seti.slice(5)}`,
    livemode: false,
    metadata: {},
    payment_method: ids.pm,
    payment_method_types: ["card"],
    status: "succeeded",
    usage: "off_session",
  };
}

function refund(ids: Ids, t: number): Obj {
  return {
    id: ids.refund,
    object: "refund",
    amount: 2000,
    balance_transaction: ids.txn,
    charge: ids.charge,
    created: t,
    currency: "usd",
    metadata: {},
    payment_intent: ids.pi,
    reason: "requested_by_customer",
    receipt_number: null,
    status: "succeeded",
  };
}

function dispute(ids: Ids, t: number): Obj {
  return {
    id: ids.dispute,
    object: "dispute",
    amount: 2000,
    balance_transactions: [],
    charge: ids.charge,
    created: t,
    currency: "usd",
    evidence_details: { due_by: t + 7 * 86400, has_evidence: false, past_due: false, submission_count: 0 },
    is_charge_refundable: false,
    livemode: false,
    metadata: {},
    payment_intent: ids.pi,
    reason: "fraudulent",
    status: "needs_response",
  };
}

function payout(ids: Ids, t: number): Obj {
  return {
    id: ids.payout,
    object: "payout",
    amount: 114200,
    arrival_date: t + 86400,
    automatic: true,
    balance_transaction: ids.txn,
    created: t,
    currency: "usd",
    description: "STRIPE PAYOUT",
    destination: "ba_1PqR2sT3uV4wX5yZ6aB7cD8e",
    failure_code: null,
    livemode: false,
    metadata: {},
    method: "standard",
    source_type: "card",
    statement_descriptor: null,
    status: "paid",
    type: "bank_account",
  };
}

/** Each event type: its object and, for `*.updated`, the attributes it had before. */
const EVENTS: Record<string, (ids: Ids, t: number) => { object: Obj; previous?: Obj }> = {
  "checkout.session.completed": (i, t) => ({ object: session(i, t, "complete", "paid") }),
  "checkout.session.expired": (i, t) => ({ object: session(i, t, "expired", "unpaid") }),
  "checkout.session.async_payment_succeeded": (i, t) => ({ object: session(i, t, "complete", "paid") }),
  "checkout.session.async_payment_failed": (i, t) => ({ object: session(i, t, "complete", "unpaid") }),
  "payment_intent.created": (i, t) => ({ object: paymentIntent(i, t, "requires_payment_method") }),
  "payment_intent.processing": (i, t) => ({ object: paymentIntent(i, t, "processing") }),
  "payment_intent.requires_action": (i, t) => ({ object: paymentIntent(i, t, "requires_action") }),
  "payment_intent.succeeded": (i, t) => ({ object: paymentIntent(i, t, "succeeded") }),
  "payment_intent.payment_failed": (i, t) => ({ object: paymentIntent(i, t, "requires_payment_method") }),
  "payment_intent.canceled": (i, t) => ({ object: paymentIntent(i, t, "canceled") }),
  "charge.succeeded": (i, t) => ({ object: charge(i, t, "succeeded") }),
  "charge.failed": (i, t) => ({ object: charge(i, t, "failed", false, false) }),
  "charge.captured": (i, t) => ({ object: charge(i, t, "succeeded") }),
  "charge.refunded": (i, t) => ({
    object: charge(i, t, "succeeded", true),
    previous: { amount_refunded: 0 },
  }),
  "charge.dispute.created": (i, t) => ({ object: dispute(i, t) }),
  "refund.created": (i, t) => ({ object: refund(i, t) }),
  "customer.created": (i, t) => ({ object: customer(i, t) }),
  "customer.updated": (i, t) => ({ object: customer(i, t), previous: { email: "jenny@example.com" } }),
  "customer.deleted": (i, t) => ({ object: { ...customer(i, t), deleted: true } }),
  "customer.subscription.created": (i, t) => ({ object: subscription(i, t, "active") }),
  "customer.subscription.updated": (i, t) => ({
    object: subscription(i, t, "active"),
    previous: { status: "trialing" },
  }),
  "customer.subscription.deleted": (i, t) => ({ object: subscription(i, t, "canceled") }),
  "customer.subscription.trial_will_end": (i, t) => ({ object: subscription(i, t, "trialing") }),
  "customer.subscription.paused": (i, t) => ({ object: subscription(i, t, "paused") }),
  "invoice.created": (i, t) => ({ object: invoice(i, t, "draft", false) }),
  "invoice.finalized": (i, t) => ({ object: invoice(i, t, "open", false) }),
  "invoice.paid": (i, t) => ({ object: invoice(i, t, "paid", true) }),
  "invoice.payment_succeeded": (i, t) => ({ object: invoice(i, t, "paid", true) }),
  "invoice.payment_failed": (i, t) => ({ object: invoice(i, t, "open", false) }),
  "invoice.upcoming": (i, t) => ({ object: invoice(i, t + 3 * 86400, "upcoming", false) }),
  "invoice.updated": (i, t) => ({ object: invoice(i, t, "open", false), previous: { auto_advance: false } }),
  "payment_method.attached": (i, t) => ({ object: paymentMethod(i, t) }),
  "setup_intent.succeeded": (i, t) => ({ object: setupIntent(i, t) }),
  "product.created": (i, t) => ({ object: product(i, t) }),
  "price.created": (i, t) => ({ object: price(i, t) }),
  "payout.paid": (i, t) => ({ object: payout(i, t) }),
};

function build(event: string, ctx: BuildContext): Draft {
  const make = EVENTS[event];
  if (make === undefined) throw new Error(`no Stripe example for ${event}`);
  const t = unix(ctx.now);
  const { object, previous } = make(_ids(ctx), t);
  const body = {
    id: prefixed("evt"),
    object: "event",
    api_version: API_VERSION,
    created: t,
    data: previous === undefined ? { object } : { object, previous_attributes: previous },
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
  source: "hand-written",
  events: Object.keys(EVENTS),
  sequences: {
    checkout: {
      description: "a Checkout payment: customer, payment intent, charge, session completed",
      steps: [
        { event: "customer.created" },
        { event: "payment_intent.created" },
        { event: "payment_intent.succeeded" },
        { event: "charge.succeeded" },
        { event: "checkout.session.completed" },
      ],
    },
    subscription: {
      description: "a subscription started: customer, subscription, invoice created, finalized, paid",
      steps: [
        { event: "customer.created" },
        { event: "customer.subscription.created" },
        { event: "invoice.created" },
        { event: "invoice.finalized" },
        { event: "invoice.paid" },
        { event: "invoice.payment_succeeded" },
      ],
    },
    "payment-failed": {
      description: "a payment that fails: payment intent created, charge failed, payment failed",
      steps: [
        { event: "payment_intent.created" },
        { event: "charge.failed" },
        { event: "payment_intent.payment_failed" },
      ],
    },
  },
  // "Stripe attempts to deliver ... for up to three days with an exponential back off" (docs/webhooks).
  retries: [3600, 7200, 14400, 28800, 57600, 86400, 86400],
  retriesNote: "Stripe retries for up to 3 days with exponential backoff",
  build,
};
