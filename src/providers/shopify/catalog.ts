/**
 * Shopify: every webhook topic of the Admin API's `WebhookSubscriptionTopic`
 * (shopify/topics.gen.ts, from the schema `@shopify/dev-mcp` ships), with
 * the `X-Shopify-*` headers it sends. Orders, products, customers and the app
 * and compliance topics keep bodies written by hand as Shopify's webhook
 * reference shows them; every other topic's body is built from its
 * resource's GraphQL object type, REST-shaped (origin `schema`).
 * @module
 */
import { digits, uuid } from "../_ids.ts";
import type { BuildContext, Draft, EntryOrigin, TriggerCatalog } from "../catalog_types.ts";
import { NOW } from "../_stamp.ts";
import {
  SHOPIFY_API_VERSION,
  SHOPIFY_PAYLOADS,
  SHOPIFY_SOURCE,
  SHOPIFY_TOPICS,
} from "./samples/topics.gen.ts";

type Obj = Record<string, unknown>;
const SHOP = "hooktap-dev.myshopify.com";

function _customer(id: number): Obj {
  return {
    id,
    email: "jenny.rosen@example.com",
    first_name: "Jenny",
    last_name: "Rosen",
    state: "enabled",
    verified_email: true,
    currency: "USD",
    tags: "",
    admin_graphql_api_id: `gid://shopify/Customer/${id}`,
  };
}

/** The trigger's time as Shopify writes times: seconds and an offset (`2024-07-01T12:00:00-00:00`). */
const _at = (c: BuildContext) => c.now.toISOString().replace(/\.\d{3}Z$/, "-00:00");

function _order(ctx: BuildContext, status: string | null, fulfillment: string | null): Obj {
  const id = Number(ctx.id("shopify.order", () => String(digits(13))));
  const customer = Number(ctx.id("shopify.customer", () => String(digits(13))));
  const at = _at(ctx);
  return {
    id,
    admin_graphql_api_id: `gid://shopify/Order/${id}`,
    cancel_reason: status === "cancelled" ? "customer" : null,
    cancelled_at: status === "cancelled" ? at : null,
    confirmation_number: "X1Y2Z3A4B",
    contact_email: "jenny.rosen@example.com",
    created_at: at,
    currency: "USD",
    current_total_price: "24.95",
    email: "jenny.rosen@example.com",
    financial_status: status === "cancelled" ? "refunded" : "paid",
    fulfillment_status: fulfillment,
    name: "#1001",
    order_number: 1001,
    processed_at: at,
    subtotal_price: "19.95",
    total_price: "24.95",
    total_tax: "0.00",
    updated_at: at,
    customer: _customer(customer),
    line_items: [{
      id: digits(14),
      admin_graphql_api_id: "gid://shopify/LineItem/866550311766439020",
      name: "Aviator sunglasses",
      price: "19.95",
      product_id: 788032119674292900,
      quantity: 1,
      sku: "SKU2006-020",
      title: "Aviator sunglasses",
      variant_id: 642667041472713900,
      vendor: null,
    }],
    shipping_lines: [{ code: "Standard", price: "5.00", title: "Standard" }],
  };
}

function _product(ctx: BuildContext): Obj {
  const id = Number(ctx.id("shopify.product", () => String(digits(13))));
  const at = _at(ctx);
  return {
    id,
    admin_graphql_api_id: `gid://shopify/Product/${id}`,
    body_html: "An example T-Shirt",
    created_at: at,
    handle: "example-t-shirt",
    product_type: "Shirts",
    status: "active",
    tags: "example, mens, t-shirt",
    title: "Example T-Shirt",
    updated_at: at,
    vendor: "Acme",
    variants: [{
      id: digits(13),
      price: "19.99",
      sku: "example-shirt-s",
      title: "Small",
      inventory_quantity: 75,
    }],
  };
}

const _customerOf = (c: BuildContext) =>
  _customer(Number(c.id("shopify.customer", () => String(digits(13)))));

/** Topics written by hand (the rest are built from the schema). */
const TOPICS: Record<string, (ctx: BuildContext) => Obj> = {
  "orders/create": (c) => _order(c, null, null),
  "orders/paid": (c) => _order(c, null, null),
  "orders/updated": (c) => _order(c, null, null),
  "orders/fulfilled": (c) => _order(c, null, "fulfilled"),
  "orders/partially_fulfilled": (c) => _order(c, null, "partial"),
  "orders/cancelled": (c) => _order(c, "cancelled", null),
  "orders/delete": (c) => ({ id: Number(c.id("shopify.order", () => String(digits(13)))) }),
  "products/create": (c) => _product(c),
  "products/update": (c) => _product(c),
  "products/delete": (c) => ({ id: Number(c.id("shopify.product", () => String(digits(13)))) }),
  "customers/create": _customerOf,
  "customers/update": _customerOf,
  "customers/enable": _customerOf,
  "customers/disable": (c) => ({ ..._customerOf(c), state: "disabled" }),
  "customers/delete": (c) => ({ id: Number(c.id("shopify.customer", () => String(digits(13)))) }),
  "app/uninstalled": () => ({
    id: 548380009,
    name: "Super Toys",
    email: "super@supertoys.com",
    domain: null,
    myshopify_domain: SHOP,
    plan_name: "basic",
  }),
  "customers/data_request": (c) => ({
    shop_id: 954889,
    shop_domain: SHOP,
    orders_requested: [Number(c.id("shopify.order", () => String(digits(13))))],
    customer: { id: 191167, email: "john@example.com", phone: "555-625-1199" },
    data_request: { id: 9999 },
  }),
  // The mandatory compliance topics are subscribed in the app's configuration, not by the enum.
  "customers/redact": (c) => ({
    shop_id: 954889,
    shop_domain: SHOP,
    customer: { id: 191167, email: "john@example.com", phone: "555-625-1199" },
    orders_to_redact: [Number(c.id("shopify.order", () => String(digits(13))))],
  }),
  "shop/redact": () => ({ shop_id: 954889, shop_domain: SHOP }),
};

const _pascal = (s: string) => s.split("_").map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join("");

/** The run's id named `name`: `shopify.order`, `shopify.fulfillmentorder`, ... (shared by a flow's topics). */
const _runId = (c: BuildContext, node: string) =>
  Number(c.id(`shopify.${node.toLowerCase()}`, () => String(digits(13))));

/**
 * A topic's body built from its resource's GraphQL type: that payload with this run's ids (its own, and
 * the order, customer and product it names, so a flow's topics agree) and times as Shopify writes them,
 * or the id alone for a deletion as Shopify sends it. A resource whose type has no id (a publication, a
 * setting) gets none; one the schema has no object type for gets the resource's id and times.
 */
function _fromSchema(topic: string, c: BuildContext): Obj {
  const { type, node } = SHOPIFY_TOPICS[topic]!;
  const gid = node || _pascal(topic.split(/[/.]/)[0]!.replace(/s$/, ""));
  const id = _runId(c, gid);
  if (/\/(delete|destroy)$/.test(topic)) return { id };
  const at = JSON.stringify(_at(c));
  const body = JSON.parse(JSON.stringify(SHOPIFY_PAYLOADS[type] ?? {}).replaceAll(`"${NOW}"`, at)) as Obj;
  for (const [key, ref] of [["order_id", "Order"], ["customer_id", "Customer"], ["product_id", "Product"]]) {
    if (typeof body[key!] === "number") body[key!] = _runId(c, ref!);
  }
  if (type !== "" && node === "") return body;
  const base = type === "" ? { created_at: _at(c), updated_at: _at(c) } : {};
  return { ...base, ...body, id, admin_graphql_api_id: `gid://shopify/${gid}/${id}` };
}

function build(topic: string, ctx: BuildContext): Draft {
  const make = TOPICS[topic];
  return {
    headers: [
      ["Content-Type", "application/json"],
      ["User-Agent", "Shopify-Captain-Hook"],
      ["X-Shopify-API-Version", SHOPIFY_API_VERSION],
      ["X-Shopify-Event-Id", uuid()],
      ["X-Shopify-Hmac-Sha256", ""],
      ["X-Shopify-Shop-Domain", SHOP],
      ["X-Shopify-Topic", topic],
      ["X-Shopify-Triggered-At", ctx.now.toISOString()],
      ["X-Shopify-Webhook-Id", uuid()],
    ],
    body: { kind: "json", value: make !== undefined ? make(ctx) : _fromSchema(topic, ctx) },
    deliveryHeader: "X-Shopify-Webhook-Id",
  };
}

function entryOrigin(topic: string): EntryOrigin | undefined {
  if (TOPICS[topic] !== undefined) return { from: "hand-written" };
  const generated = SHOPIFY_TOPICS[topic];
  if (generated === undefined) return undefined;
  return generated.type === "" ? { from: "schema (topic only)" } : { from: `schema ${generated.type}` };
}

/** Shopify's catalog. */
export const catalog: TriggerCatalog = {
  provider: "shopify",
  source: SHOPIFY_SOURCE,
  entryOrigin,
  events: [...new Set([...Object.keys(SHOPIFY_TOPICS), ...Object.keys(TOPICS)])],
  sequences: {
    order: {
      description: "an order created, paid, then fulfilled",
      steps: [{ event: "orders/create" }, { event: "orders/paid" }, { event: "orders/fulfilled" }],
    },
  },
  retries: [60, 120, 240, 480, 960, 1920, 3600, 7200],
  retriesNote: "Shopify retries 8 times over 4 hours",
  build,
};
