/**
 * Generates Stripe's part of the trigger catalog from the `stripe` npm
 * package's TypeScript declarations (pinned in deno.json): types/EventTypes.d.ts
 * names every event type and the object its `data.object` holds; the object
 * declarations say which fields are required, which nullable, and their enum
 * literals. The TypeScript compiler API reads them (dev-time only), and each
 * event's object is built with every required field, values chosen to agree
 * with the event (invoice.paid is paid, charge.refunded has its refund), ids
 * with Stripe's prefixes. Writes src/providers/stripe/samples/: one module per
 * group of event types (`invoice`, `charge`, ...), loaded only when one of its
 * events is sent, and index.gen.ts (event types, groups, the template ids a
 * trigger run replaces with its own). `deno task trigger:catalog:stripe` writes
 * them; tests/trigger/stripe_catalog_test.ts fails when they are stale.
 * @module
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/** Directory of the generated modules, relative to the repository root. */
export const STRIPE_DIR = "src/providers/stripe/samples";

/** The time every generated timestamp is relative to; a trigger run shifts them to its own clock. */
export const BASE_TIME = 1_750_000_000;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Where the `stripe` package is, its version and its API version. */
export function stripePackage(): { dir: string; version: string; apiVersion: string } {
  const require = createRequire(import.meta.url);
  let dir = dirname(require.resolve("stripe"));
  while (!exists(join(dir, "types", "index.d.ts"))) dir = dirname(dir);
  const pkg = JSON.parse(Deno.readTextFileSync(join(dir, "package.json")));
  const api = Deno.readTextFileSync(join(dir, "cjs", "apiVersion.js")).match(/ApiVersion = '([^']+)'/);
  return { dir, version: pkg.version, apiVersion: api![1]! };
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Object name → [the trigger run's id name, Stripe's id prefix]. Names shared with hand-written flows. */
const KINDS: Record<string, [string, string]> = {
  customer: ["customer", "cus"],
  payment_intent: ["pi", "pi"],
  charge: ["charge", "ch"],
  payment_method: ["pm", "pm"],
  "checkout.session": ["session", "cs_test"],
  invoice: ["invoice", "in"],
  subscription: ["sub", "sub"],
  subscription_item: ["si", "si"],
  product: ["product", "prod"],
  price: ["price", "price"],
  plan: ["price", "price"],
  setup_intent: ["seti", "seti"],
  refund: ["refund", "re"],
  dispute: ["dispute", "dp"],
  payout: ["payout", "po"],
  balance_transaction: ["txn", "txn"],
  account: ["account", "acct"],
  application: ["application", "ca"],
  application_fee: ["fee", "fee"],
  fee_refund: ["fee_refund", "fr"],
  bank_account: ["bank_account", "ba"],
  card: ["card", "card"],
  capability: ["capability", "card_payments"],
  coupon: ["coupon", "co"],
  credit_note: ["credit_note", "cn"],
  credit_note_line_item: ["credit_note_line", "cnli"],
  discount: ["discount", "di"],
  file: ["file", "file"],
  invoiceitem: ["invoiceitem", "ii"],
  invoice_payment: ["invoice_payment", "inpay"],
  line_item: ["line_item", "il"],
  mandate: ["mandate", "mandate"],
  payment_link: ["payment_link", "plink"],
  person: ["person", "person"],
  promotion_code: ["promotion_code", "promo"],
  quote: ["quote", "qt"],
  review: ["review", "prv"],
  source: ["source", "src"],
  subscription_schedule: ["sub_sched", "sub_sched"],
  tax_id: ["tax_id", "txi"],
  tax_rate: ["tax_rate", "txr"],
  topup: ["topup", "tu"],
  transfer: ["transfer", "tr"],
  transfer_reversal: ["transfer_reversal", "trr"],
  "test_helpers.test_clock": ["test_clock", "clock"],
  "billing.meter": ["meter", "mtr"],
  "billing.alert": ["alert", "alrt"],
  "billing.credit_grant": ["credit_grant", "credgr"],
  "billing.credit_balance_transaction": ["credit_balance_txn", "cbtxn"],
  "billing_portal.configuration": ["portal_config", "bpc"],
  "billing_portal.session": ["portal_session", "bps"],
  "climate.order": ["climate_order", "climorder"],
  "climate.product": ["climate_product", "climsku"],
  "financial_connections.account": ["fca", "fca"],
  "identity.verification_session": ["vs", "vs"],
  "issuing.authorization": ["iauth", "iauth"],
  "issuing.card": ["ic", "ic"],
  "issuing.cardholder": ["ich", "ich"],
  "issuing.dispute": ["idp", "idp"],
  "issuing.personalization_design": ["pd", "pd"],
  "issuing.token": ["intok", "intok"],
  "issuing.transaction": ["ipi", "ipi"],
  "radar.early_fraud_warning": ["issfr", "issfr"],
  "reporting.report_run": ["frr", "frr"],
  "sigma.scheduled_query_run": ["sqr", "sqr"],
  "terminal.reader": ["tmr", "tmr"],
  "treasury.financial_account": ["fa", "fa"],
  "treasury.inbound_transfer": ["ibt", "ibt"],
  "treasury.outbound_payment": ["obp", "obp"],
  "treasury.outbound_transfer": ["obt", "obt"],
  "treasury.received_credit": ["rc", "rc"],
  "treasury.received_debit": ["rd", "rd"],
  "treasury.credit_reversal": ["credrev", "credrev"],
  "treasury.debit_reversal": ["debrev", "debrev"],
  "treasury.transaction": ["trxn", "trxn"],
  source_transaction: ["srctxn", "srctxn"],
  "entitlements.active_entitlement_summary": ["ent_summary", "ent"],
  "entitlements.feature": ["feature", "feat"],
  "tax.settings": ["tax_settings", "taxstg"],
};

/** A field name that names an object kind (`customer: "cus_..."`). */
const FIELD_KIND: Record<string, string> = {
  customer: "customer",
  payment_intent: "payment_intent",
  charge: "charge",
  payment_method: "payment_method",
  default_payment_method: "payment_method",
  invoice: "invoice",
  latest_invoice: "invoice",
  subscription: "subscription",
  subscription_item: "subscription_item",
  product: "product",
  price: "price",
  setup_intent: "setup_intent",
  refund: "refund",
  dispute: "dispute",
  payout: "payout",
  balance_transaction: "balance_transaction",
  account: "account",
  on_behalf_of: "account",
  destination: "account",
  latest_charge: "charge",
  source_transaction: "charge",
  mandate: "mandate",
  quote: "quote",
  test_clock: "test_clock",
  review: "review",
  transfer: "transfer",
  financial_account: "treasury.financial_account",
  cardholder: "issuing.cardholder",
  payment_link: "payment_link",
  schedule: "subscription_schedule",
  coupon: "coupon",
  promotion_code: "promotion_code",
  credit_note: "credit_note",
  application: "application",
  meter: "billing.meter",
  file: "file",
  session: "checkout.session",
};

/** A template id: the prefix and a fixed tail naming the kind, replaced by a run's own id. */
export function templateId(kind: string): string {
  const [, prefix] = KINDS[kind] ?? [kind, kind.replace(/[^a-z]/g, "").slice(0, 6)];
  let h = 2166136261;
  for (const c of kind) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
  const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  let tail = "";
  let x = h;
  for (let i = 0; i < 24; i++) {
    tail += alphabet[x % 62];
    x = Math.imul(x ^ (x >>> 13), 1103515245) >>> 0;
  }
  return `${prefix}_${tail}`;
}

/** The event verb → the status its object has (`succeeded` → `succeeded`), where the word differs. */
const STATUS_OF: Record<string, Record<string, string>> = {
  payment_intent: {
    created: "requires_payment_method",
    payment_failed: "requires_payment_method",
    partially_funded: "requires_payment_method",
    amount_capturable_updated: "requires_capture",
  },
  invoice: {
    created: "draft",
    deleted: "draft",
    finalized: "open",
    finalization_failed: "draft",
    paid: "paid",
    payment_succeeded: "paid",
    payment_failed: "open",
    payment_action_required: "open",
    sent: "open",
    overdue: "open",
    overpaid: "paid",
    will_be_due: "open",
    upcoming: "draft",
    voided: "void",
    marked_uncollectible: "uncollectible",
    updated: "open",
  },
  subscription: {
    created: "active",
    updated: "active",
    deleted: "canceled",
    resumed: "active",
    trial_will_end: "trialing",
    pending_update_applied: "active",
    pending_update_expired: "active",
  },
  charge: {
    succeeded: "succeeded",
    captured: "succeeded",
    refunded: "succeeded",
    updated: "succeeded",
    expired: "failed",
    "dispute.created": "succeeded",
  },
  "checkout.session": {
    completed: "complete",
    async_payment_succeeded: "complete",
    async_payment_failed: "complete",
  },
  dispute: {
    "dispute.created": "needs_response",
    "dispute.updated": "under_review",
    "dispute.closed": "won",
    "dispute.funds_withdrawn": "needs_response",
    "dispute.funds_reinstated": "won",
  },
  setup_intent: { created: "requires_payment_method", setup_failed: "requires_payment_method" },
  quote: { finalized: "open", accepted: "accepted", canceled: "canceled", created: "draft" },
  payout: { created: "pending", updated: "pending", reconciliation_completed: "paid" },
  refund: { created: "succeeded", updated: "succeeded" },
  subscription_schedule: {
    created: "not_started",
    aborted: "canceled",
    expiring: "active",
    updated: "active",
  },
  topup: { created: "pending" },
};

/** Event-specific fields, by path from data.object, applied when the object declares them. */
const PATCH: Record<string, Record<string, Json>> = {
  "invoice.paid": { amount_paid: 2000, amount_remaining: 0, attempted: true, attempt_count: 1 },
  "invoice.payment_succeeded": { amount_paid: 2000, amount_remaining: 0, attempted: true, attempt_count: 1 },
  "invoice.payment_failed": { attempted: true, attempt_count: 1, amount_paid: 0, amount_remaining: 2000 },
  "invoice.created": { billing_reason: "subscription_create", attempted: false, amount_paid: 0 },
  "invoice.finalized": { billing_reason: "subscription_create" },
  "charge.succeeded": { paid: true, captured: true, amount_captured: 2000 },
  "charge.captured": { paid: true, captured: true, amount_captured: 2000 },
  "charge.refunded": {
    paid: true,
    captured: true,
    amount_captured: 2000,
    refunded: true,
    amount_refunded: 2000,
  },
  "charge.failed": { paid: false, captured: false, failure_code: "card_declined" },
  "charge.pending": { status: "pending", paid: false },
  "payment_intent.succeeded": { amount_received: 2000 },
  "checkout.session.completed": { payment_status: "paid" },
  "checkout.session.async_payment_succeeded": { payment_status: "paid" },
  "checkout.session.async_payment_failed": { payment_status: "unpaid" },
  "checkout.session.expired": { payment_status: "unpaid", status: "expired" },
  "customer.subscription.paused": { status: "paused" },
  "customer.subscription.trial_will_end": { status: "trialing" },
};

/** Nullable sub-objects built rather than left null: what a card payment, a price, a session carry. */
const WANTED_OBJECTS = new Set([
  "outcome",
  "payment_method_details",
  "customer_details",
  "recurring",
  "billing_details",
  "card",
  "address",
  "invoice_settings",
]);

/** Optional fields an event's object carries: a refunded charge lists its refund. */
function _wanted(event: string, objectName: string | undefined, field: string): boolean {
  return event === "charge.refunded" && objectName === "charge" && field === "refunds";
}

interface Ctx {
  event: string;
  kind: string;
  verb: string;
  stack: ts.Type[];
  path: string[];
}

class Synth {
  constructor(readonly checker: ts.TypeChecker) {}

  #literalOf(t: ts.Type): string | undefined {
    const o = t.getProperty("object");
    if (o === undefined) return undefined;
    const ot = this.checker.getTypeOfSymbol(o);
    return ot.isStringLiteral() ? ot.value : undefined;
  }

  value(type: ts.Type, key: string, ctx: Ctx, depth: number): Json {
    const c = this.checker;
    if (type.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined | ts.TypeFlags.Void)) return null;
    if (type.flags & ts.TypeFlags.Any || type.flags & ts.TypeFlags.Unknown) return null;
    if (type.isUnion()) {
      const members = type.types.filter((m) =>
        !(m.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined | ts.TypeFlags.Void))
      );
      const nullable = members.length < type.types.length;
      if (key === "metadata" && ctx.path.length <= 2) return {};
      if (key === "refunds" && ctx.event === "charge.refunded" && members.length === 1) {
        return this.value(members[0]!, key, ctx, depth);
      }
      if (members.every((m) => m.flags & ts.TypeFlags.BooleanLiteral)) return this.#bool(key, ctx);
      const literals = members.filter((m) => m.isStringLiteral()) as ts.StringLiteralType[];
      if (literals.length === members.length) {
        if (nullable && !this.#wantsLiteral(key, ctx)) return null;
        return this.#pick(literals.map((l) => l.value), key, ctx);
      }
      const stringy = members.find((m) => m.flags & ts.TypeFlags.String);
      const objects = members.filter((m) => m.flags & ts.TypeFlags.Object);
      if (stringy !== undefined && objects.length > 0) {
        // An expandable field: an id, or the object when expanded. Webhooks send the id.
        const kind = this.#literalOf(objects[0]!) ?? FIELD_KIND[key];
        if (nullable && !this.#wantsRef(key, kind, ctx)) return null;
        return kind !== undefined ? templateId(kind) : this.#string(key, ctx);
      }
      if (nullable) {
        if (members.every((m) => m.flags & (ts.TypeFlags.String | ts.TypeFlags.Number))) {
          const m = members[0]!;
          if (m.flags & ts.TypeFlags.String && FIELD_KIND[key] !== undefined) {
            return this.#wantsRef(key, FIELD_KIND[key], ctx) ? templateId(FIELD_KIND[key]!) : null;
          }
          if (m.flags & ts.TypeFlags.String && this.#wantsString(key, ctx)) return this.#string(key, ctx);
          if (m.flags & ts.TypeFlags.Number && this.#wantsNumber(key, ctx)) return this.#number(key, ctx);
        }
        // Sub-objects a real payload of this kind carries (a card charge's outcome, a price's recurring).
        if (objects.length === 1 && members.length === 1 && ctx.path.length <= 5 && WANTED_OBJECTS.has(key)) {
          return this.value(objects[0]!, key, ctx, depth);
        }
        return null;
      }
      const first = objects.find((m) => !/^Deleted/.test(c.typeToString(m))) ?? members[0]!;
      return this.value(first, key, ctx, depth);
    }
    if (type.isStringLiteral()) return type.value;
    if (type.isNumberLiteral()) return type.value;
    if (type.flags & ts.TypeFlags.BooleanLiteral) return c.typeToString(type) === "true";
    if (type.flags & ts.TypeFlags.Boolean) return this.#bool(key, ctx);
    if (type.flags & ts.TypeFlags.String) return this.#string(key, ctx);
    if (type.flags & ts.TypeFlags.Number) return this.#number(key, ctx);
    if (c.isArrayType(type)) {
      const el = c.getTypeArguments(type as ts.TypeReference)[0];
      if (el !== undefined && (key === "payment_method_types")) return ["card"];
      if (el !== undefined && key === "data" && depth < 6 && ctx.path.at(-2) !== "data") {
        const parent = ctx.path.at(-2) ?? "";
        if (["lines", "items", "refunds"].includes(parent)) return [this.value(el, "item", ctx, depth + 1)];
      }
      return [];
    }
    if (type.flags & ts.TypeFlags.Object) return this.#object(type, key, ctx, depth);
    return null;
  }

  #object(type: ts.Type, key: string, ctx: Ctx, depth: number): Json {
    const c = this.checker;
    if (c.getIndexInfosOfType(type).length > 0 && type.getProperties().length === 0) return {};
    if (key === "metadata") return {};
    if (ctx.stack.includes(type) || depth > 8) return {};
    const out: Record<string, Json> = {};
    ctx.stack.push(type);
    const objectName = this.#literalOf(type);
    for (const prop of c.getPropertiesOfType(type)) {
      if (prop.flags & ts.SymbolFlags.Optional && !_wanted(ctx.event, objectName, prop.getName())) continue;
      if (prop.flags & ts.SymbolFlags.Method) continue;
      const name = prop.getName();
      const t = c.getTypeOfSymbol(prop);
      if (t.getCallSignatures().length > 0) continue;
      ctx.path.push(name);
      if (name === "id" && objectName !== undefined && (t.flags & ts.TypeFlags.String)) {
        out[name] = templateId(objectName);
      } else if (name === "url" && objectName === "list") {
        out[name] = `/v1/${ctx.kind.split(".").at(-1)}s/${templateId(ctx.kind)}/${key}`;
      } else out[name] = this.value(t, name, ctx, depth + 1);
      ctx.path.pop();
    }
    ctx.stack.pop();
    return out;
  }

  #wantsLiteral(key: string, ctx: Ctx): boolean {
    if (key === "status" || key === "type" || key === "funding" || key === "brand") return true;
    return ctx.path.length <= 1 &&
      ["billing_reason", "collection_method", "tax_exempt", "mode"].includes(key);
  }

  #wantsRef(key: string, kind: string | undefined, ctx: Ctx): boolean {
    if (kind === undefined) return false;
    // Nested, only the flow's own objects (an invoice line's invoice and subscription).
    if (ctx.path.length > 1 && !(ctx.path.length <= 4 && ["invoice", "subscription"].includes(ctx.kind))) {
      return false;
    }
    const common = [
      "customer",
      "payment_intent",
      "invoice",
      "subscription",
      "charge",
      "payment_method",
      "default_payment_method",
      "latest_charge",
      "latest_invoice",
      "balance_transaction",
      "product",
      "price",
    ];
    if (!common.includes(key)) return false;
    // A Checkout payment and a one-off PaymentIntent belong to no invoice or subscription.
    if (ctx.kind === "payment_intent" && key === "invoice") return false;
    if (ctx.kind === "charge" && key === "invoice") return false;
    if (ctx.kind === "checkout.session" && ["invoice", "subscription"].includes(key)) return false;
    if (ctx.kind === "payment_intent" && key === "latest_charge") {
      return !["created", "canceled", "requires_action", "payment_failed"].includes(ctx.verb);
    }
    if (key === "balance_transaction") return ctx.kind === "charge" && ctx.verb !== "failed";
    return true;
  }

  #wantsString(key: string, ctx: Ctx): boolean {
    if (ctx.path.length > 2) return false;
    return /^(email|name|description|receipt_email|customer_email|customer_name|currency|country|number|hosted_invoice_url|invoice_pdf|receipt_url|url|client_secret|statement_descriptor|account_country|account_name|last4|fingerprint|return_url)$/
      .test(key) &&
      !(key === "number" && ctx.kind === "invoice" &&
        ["created", "deleted", "upcoming"].includes(ctx.verb)) &&
      !((key === "hosted_invoice_url" || key === "invoice_pdf") &&
        ["created", "deleted"].includes(ctx.verb)) &&
      !(key === "url" && ctx.kind === "checkout.session" && ctx.verb !== "created");
  }

  #wantsNumber(key: string, ctx: Ctx): boolean {
    if (key === "quantity" && ctx.path.length <= 4) return true;
    if (ctx.path.length > 2) return false;
    if (key === "canceled_at" || key === "ended_at") return ["deleted", "canceled"].includes(ctx.verb);
    if (key === "paid_at") return ["paid", "payment_succeeded"].includes(ctx.verb);
    if (key === "finalized_at") return !["created", "deleted"].includes(ctx.verb);
    if (key === "next_payment_attempt") return ctx.verb === "payment_failed";
    return /^(amount.*|created|period_(start|end)|current_period_(start|end)|start_date|expires_at|arrival_date|unit_amount|exp_(month|year)|quantity)$/
      .test(key);
  }

  #bool(key: string, ctx: Ctx): boolean {
    if (key === "livemode" || key === "deleted" && ctx.verb !== "deleted") return false;
    if (key === "deleted") return true;
    if (key === "active") return true;
    if (key === "paid") {
      return ["paid", "succeeded", "payment_succeeded", "refunded", "captured"].includes(ctx.verb);
    }
    if (key === "captured") return ["succeeded", "captured", "refunded"].includes(ctx.verb);
    if (key === "refunded") return ctx.verb === "refunded";
    return false;
  }

  #pick(values: string[], key: string, ctx: Ctx): string {
    if (key === "status" && ctx.path.length === 1) {
      const mapped = STATUS_OF[ctx.kind]?.[ctx.verb];
      if (mapped !== undefined && values.includes(mapped)) return mapped;
      for (
        const v of [ctx.verb, ctx.verb.replace(/^.*\./, ""), `${ctx.verb}d`, ctx.verb.replace(/ed$/, "")]
      ) {
        if (values.includes(v)) return v;
      }
      for (const v of ["active", "succeeded", "open", "available", "pending", "complete"]) {
        if (values.includes(v)) return v;
      }
    }
    const preferred: Record<string, string> = {
      currency: "usd",
      funding: "credit",
      brand: "visa",
      tax_exempt: "none",
      collection_method: "charge_automatically",
      billing_reason: "subscription_cycle",
      mode: "payment",
      type: "card",
      capture_method: "automatic_async",
      confirmation_method: "automatic",
      billing_scheme: "per_unit",
      tax_behavior: "unspecified",
      usage_type: "licensed",
      interval: "month",
      risk_level: "normal",
    };
    const p = preferred[key];
    if (p !== undefined && values.includes(p)) return p;
    return values[0]!;
  }

  #string(key: string, ctx: Ctx): string {
    const kind = FIELD_KIND[key];
    if (kind !== undefined) return templateId(kind);
    if (key === "id") return templateId(ctx.path.at(-2) ?? ctx.kind);
    if (key === "type") return ctx.path.at(-2) === "outcome" ? "authorized" : "card";
    const known: Record<string, string> = {
      currency: "usd",
      email: "jenny.rosen@example.com",
      receipt_email: "jenny.rosen@example.com",
      customer_email: "jenny.rosen@example.com",
      name: "Jenny Rosen",
      customer_name: "Jenny Rosen",
      country: "US",
      account_country: "US",
      account_name: "Acme Inc.",
      last4: "4242",
      fingerprint: "Xt5EWLLDS7FJjR1c",
      number: "7B1C3A2F-0001",
      description: "Pro plan",
      statement_descriptor: "ACME INC",
      postal_code: "42424",
      client_secret: `${templateId(ctx.kind)}_secret_hooktap`,
      hosted_invoice_url: `https://invoice.stripe.com/i/acct_test/${templateId("invoice")}`,
      invoice_pdf: `https://pay.stripe.com/invoice/acct_test/${templateId("invoice")}/pdf`,
      receipt_url: `https://pay.stripe.com/receipts/payment/${templateId("charge")}`,
      return_url: "https://example.com/return",
      success_url: "https://example.com/success",
      cancel_url: "https://example.com/cancel",
      url: `https://checkout.stripe.com/c/pay/${templateId("checkout.session")}`,
      unit_amount_decimal: "2000",
      api_version: "",
    };
    return known[key] ??
      (key.endsWith("_url") ? "https://example.com/" : key.endsWith("_decimal") ? "0" : key);
  }

  #number(key: string, ctx: Ctx): number {
    if (
      /^(created|updated|.*_at|.*_date|date|period_start|current_period_start|start_date|billing_cycle_anchor|available_on)$/
        .test(key)
    ) {
      if (key === "expires_at") return BASE_TIME + 86400;
      if (key === "arrival_date" || key === "due_date") return BASE_TIME + 2 * 86400;
      return BASE_TIME - (key === "created" && ctx.path.length === 1 ? 60 : 0);
    }
    if (/period_end$|trial_end$/.test(key)) return BASE_TIME + 30 * 86400;
    if (ctx.path.at(-2) === "period" && (key === "start" || key === "end")) {
      return key === "start" ? BASE_TIME : BASE_TIME + 30 * 86400;
    }
    if (key === "exp_month") return 8;
    if (key === "exp_year") return 2030;
    if (key === "quantity" || key === "interval_count") return 1;
    if (key === "amount_refunded" || key === "amount_capturable" || key === "amount_reversed") return 0;
    if (
      /^(amount|amount_due|amount_total|amount_subtotal|subtotal|total|unit_amount|amount_remaining|net)$/
        .test(key)
    ) {
      return 2000;
    }
    if (key === "fee") return 88;
    return 0;
  }
}

/** One generated event: its object, and what a change event had before. */
export interface GeneratedStripeEvent {
  type: string;
  /** The `Stripe.<...>Event` interface name (for the type-check oracle). */
  iface: string;
  /** The object's type, `Stripe.Invoice`. */
  objectType: string;
  object: Json;
  previous?: Json;
}

/** Every event type of the package's EventTypes.d.ts, with its object built. */
export function generate(): { events: GeneratedStripeEvent[]; version: string; apiVersion: string } {
  const { dir, version, apiVersion } = stripePackage();
  const index = join(dir, "types", "index.d.ts");
  const program = ts.createProgram([index], { noEmit: true, strict: true, types: [] });
  const checker = program.getTypeChecker();
  const file = program.getSourceFile(join(dir, "types", "EventTypes.d.ts"))!;
  const synth = new Synth(checker);
  const events: GeneratedStripeEvent[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isInterfaceDeclaration(node) && node.name.text.endsWith("Event")) {
      const typeProp = node.members.find((m) => m.name?.getText() === "type") as ts.PropertySignature;
      const lit =
        typeProp?.type && ts.isLiteralTypeNode(typeProp.type) && ts.isStringLiteral(typeProp.type.literal)
          ? typeProp.type.literal.text
          : undefined;
      if (lit !== undefined) {
        const t = checker.getTypeAtLocation(node);
        const data = checker.getTypeOfSymbol(t.getProperty("data")!);
        const objSym = data.getProperty("object")!;
        const objDecl = objSym.declarations![0] as ts.PropertySignature;
        const objType = checker.getTypeOfSymbol(objSym);
        const objectName = objType.getProperty("object") &&
            checker.getTypeOfSymbol(objType.getProperty("object")!).isStringLiteral()
          ? (checker.getTypeOfSymbol(objType.getProperty("object")!) as ts.StringLiteralType).value
          : lit.slice(0, lit.lastIndexOf("."));
        const verb = _verb(lit, objectName);
        const ctx: Ctx = { event: lit, kind: objectName, verb, stack: [], path: [] };
        const object = synth.value(objType, "object", ctx, 0) as Record<string, Json>;
        _patch(lit, object);
        const ev: GeneratedStripeEvent = {
          type: lit,
          iface: node.name.text,
          objectType: objDecl.type!.getText(),
          object,
        };
        const prev = _previous(lit, object);
        if (prev !== undefined) ev.previous = prev;
        events.push(ev);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  events.sort((a, b) => a.type.localeCompare(b.type));
  return { events, version, apiVersion };
}

/** What happened to the object: `invoice.payment_succeeded` → `payment_succeeded`; a dispute's `dispute.created`. */
function _verb(type: string, objectName: string): string {
  const parts = type.split(".");
  if (objectName === "dispute" && type.startsWith("charge.dispute.")) return `dispute.${parts.at(-1)}`;
  return parts.at(-1)!;
}

/** Every price and plan in `value` a monthly $20 recurring one of the product, as a subscription's is. */
function _tidy(value: Json): void {
  if (Array.isArray(value)) return value.forEach(_tidy);
  if (typeof value !== "object" || value === null) return;
  if (value.object === "price") {
    if ("type" in value) value.type = "recurring";
    if ("unit_amount" in value) value.unit_amount = 2000;
    if ("unit_amount_decimal" in value) value.unit_amount_decimal = "2000";
    if ("product" in value) value.product = templateId("product");
  }
  if (value.object === "plan") {
    if ("amount" in value) value.amount = 2000;
    if ("amount_decimal" in value) value.amount_decimal = "2000";
    if ("product" in value) value.product = templateId("product");
    if ("metadata" in value) value.metadata = {};
  }
  for (const v of Object.values(value)) _tidy(v);
}

function _patch(type: string, object: Record<string, Json>): void {
  _tidy(object);
  // Webhook invoices are mostly a subscription's: the parent names it (the basil API moved it there).
  if (object.object === "invoice" && "parent" in object) {
    object.parent = {
      quote_details: null,
      subscription_details: { metadata: {}, subscription: templateId("subscription") },
      type: "subscription_details",
    };
  }
  for (const [k, v] of Object.entries(PATCH[type] ?? {})) if (k in object) object[k] = v;
  if (type === "charge.refunded" && typeof object.refunds === "object" && object.refunds !== null) {
    const list = object.refunds as Record<string, Json>;
    const refund = (list.data as Json[] | undefined)?.[0] as Record<string, Json> | undefined;
    if (refund !== undefined) {
      refund.charge = templateId("charge");
      refund.payment_intent = templateId("payment_intent");
      refund.status = "succeeded";
      refund.amount = 2000;
    }
  } else if (typeof object.refunds === "object" && object.refunds !== null) {
    (object.refunds as Record<string, Json>).data = [];
  }
  const outcome = object.outcome as Record<string, Json> | null | undefined;
  if (object.object === "charge" && typeof outcome === "object" && outcome !== null) {
    const failed = object.status === "failed";
    Object.assign(outcome, {
      network_status: failed ? "declined_by_network" : "approved_by_network",
      reason: failed ? "generic_decline" : null,
      risk_level: "normal",
      seller_message: failed
        ? "The bank did not return any further details with this decline."
        : "Payment complete.",
      type: failed ? "issuer_declined" : "authorized",
    });
    if (failed) object.failure_message = "Your card was declined.";
  }
  if (
    type.startsWith("payment_intent.") && type.endsWith("payment_failed") && "last_payment_error" in object
  ) {
    object.last_payment_error = {
      code: "card_declined",
      decline_code: "generic_decline",
      doc_url: "https://stripe.com/docs/error-codes/card-declined",
      message: "Your card was declined.",
      type: "card_error",
    };
  }
}

function _previous(type: string, object: Record<string, Json>): Json | undefined {
  if (type === "charge.refunded") return { amount_refunded: 0, refunded: false };
  if (!type.endsWith(".updated")) return undefined;
  // What changed: metadata where the object has it (Stripe sends the old value of each changed field).
  if ("metadata" in object) return { metadata: { plan: "basic" } };
  if (typeof object.description === "string") return { description: null };
  return {};
}

/** Group of an event type: its first segment (`invoice`), `customer.subscription` kept apart. */
export function groupOf(type: string): string {
  const parts = type.split(".");
  if (parts[0] === "customer" && parts.length > 2) return `customer_${parts[1]}`;
  if (
    ["issuing", "treasury", "billing", "terminal", "financial_connections", "identity"].includes(parts[0]!)
  ) {
    return `${parts[0]}_${parts[1]}`;
  }
  return parts[0]!;
}

const HEADER = (id: string) =>
  `// Generated by \`deno task trigger:catalog:stripe\` from ${id}'s TypeScript declarations. Do not edit.\n` +
  "// deno-fmt-ignore-file\n// deno-lint-ignore-file\n\n";

/** The files the generator writes: path (from the repository root) → text. */
export function render(): Map<string, string> {
  const { events, version, apiVersion } = generate();
  const id = `stripe@${version}`;
  const files = new Map<string, string>();
  const groups = new Map<string, GeneratedStripeEvent[]>();
  for (const e of events) {
    const g = groupOf(e.type);
    groups.set(g, [...(groups.get(g) ?? []), e]);
  }
  const ids: Record<string, [string, string]> = {};
  for (const [kind, [name, prefix]] of Object.entries(KINDS)) ids[templateId(kind)] = [name, prefix];
  for (const [group, list] of groups) {
    const body: Record<string, { iface: string; objectType: string; object: Json; previous?: Json }> = {};
    for (const e of list) {
      body[e.type] = e.previous === undefined
        ? { iface: e.iface, objectType: e.objectType, object: e.object }
        : { iface: e.iface, objectType: e.objectType, object: e.object, previous: e.previous };
    }
    files.set(
      `${STRIPE_DIR}/${group}.gen.ts`,
      HEADER(id) +
        `/** Stripe's ${group} events: each event type's data.object (and previous_attributes). */\n` +
        `export const OBJECTS: Readonly<Record<string, { iface: string; objectType: string; object: unknown; previous?: unknown }>> = ${
          JSON.stringify(body, null, 1)
        };\n`,
    );
  }
  const endpoints = Deno.readTextFileSync(
    join(stripePackage().dir, "types", "WebhookEndpointsResource.d.ts"),
  );
  const start = endpoints.indexOf("type ApiVersion =");
  const versions = [...endpoints.slice(start, endpoints.indexOf(";", start)).matchAll(/'([^']+)'/g)].map((
    m,
  ) => m[1]!);
  const index = HEADER(id) + 'import { lazyImport } from "../../../cli/lazy.ts";\n\n' +
    `/** Where this catalog comes from. */\nexport const STRIPE_SOURCE = "generated from ${id} (its TypeScript declarations)";\n\n` +
    `/** The API version the package (and every generated payload) is pinned to. */\nexport const STRIPE_API_VERSION = "${apiVersion}";\n\n` +
    `/** Every API version a webhook endpoint may be pinned to (the package's WebhookEndpointCreateParams.ApiVersion). */\nexport const STRIPE_API_VERSIONS: readonly string[] = ${
      JSON.stringify(versions)
    };\n\n` +
    `/** The time generated timestamps are relative to (a run shifts them to its clock). */\nexport const STRIPE_BASE_TIME = ${BASE_TIME};\n\n` +
    `/** Every event type → its group module. */\nexport const STRIPE_EVENTS: Readonly<Record<string, string>> = {\n${
      events.map((e) => `  ${JSON.stringify(e.type)}: ${JSON.stringify(groupOf(e.type))},`).join("\n")
    }\n};\n\n` +
    `/** Template id → [the run's id name, Stripe's prefix]: a run gives each its own id, shared by a flow's steps. */\nexport const STRIPE_IDS: Readonly<Record<string, readonly [string, string]>> = ${
      JSON.stringify(ids, null, 1)
    };\n\n` +
    `type Objects = Readonly<Record<string, { iface: string; objectType: string; object: unknown; previous?: unknown }>>;\n\n` +
    `/** Each group's module, imported only when one of its events is sent (src/cli/lazy.ts: out of the graph Deno loads ahead). */\nexport const STRIPE_LOADERS: Readonly<Record<string, () => Promise<{ OBJECTS: Objects }>>> = {\n${
      [...groups.keys()].sort().map((g) =>
        `  ${JSON.stringify(g)}: () => lazyImport("${STRIPE_DIR}/${g}.gen.ts"),`
      ).join(
        "\n",
      )
    }\n};\n`;
  files.set(`${STRIPE_DIR}/index.gen.ts`, index);
  return files;
}

if (import.meta.main) {
  const root = join(dirname(fileURLToPath(import.meta.url)), "..");
  const files = render();
  const dir = join(root, STRIPE_DIR);
  try {
    for (const entry of Deno.readDirSync(dir)) {
      if (entry.name.endsWith(".gen.ts")) Deno.removeSync(join(dir, entry.name));
    }
  } catch { /* first run */ }
  Deno.mkdirSync(dir, { recursive: true });
  for (const [path, text] of files) Deno.writeTextFileSync(join(root, path), text);
  // deno-lint-ignore no-console
  console.log(`wrote ${files.size} files to ${STRIPE_DIR}`);
}
