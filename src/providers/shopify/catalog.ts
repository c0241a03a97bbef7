/**
 * Shopify: ten topics, bodies shaped as Shopify's webhook reference shows
 * them (Admin API 2024-07), with the `X-Shopify-*` headers it sends.
 * @module
 */
import { digits, uuid } from "../../trigger/_ids.ts";
import type { BuildContext, Draft, TriggerCatalog } from "../../trigger/types.ts";

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

function _order(ctx: BuildContext, status: string | null, fulfillment: string | null): Obj {
  const id = Number(ctx.id("shopify.order", () => String(digits(13))));
  const customer = Number(ctx.id("shopify.customer", () => String(digits(13))));
  const at = ctx.now.toISOString().replace(/\.\d{3}Z$/, "-00:00");
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
  const at = ctx.now.toISOString().replace(/\.\d{3}Z$/, "-00:00");
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

const TOPICS: Record<string, (ctx: BuildContext) => Obj> = {
  "orders/create": (c) => _order(c, null, null),
  "orders/paid": (c) => _order(c, null, null),
  "orders/updated": (c) => _order(c, null, null),
  "orders/fulfilled": (c) => _order(c, null, "fulfilled"),
  "orders/cancelled": (c) => _order(c, "cancelled", null),
  "products/create": (c) => _product(c),
  "products/update": (c) => _product(c),
  "customers/create": (c) => _customer(Number(c.id("shopify.customer", () => String(digits(13))))),
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
};

function build(topic: string, ctx: BuildContext): Draft {
  const make = TOPICS[topic]!;
  return {
    headers: [
      ["Content-Type", "application/json"],
      ["User-Agent", "Shopify-Captain-Hook"],
      ["X-Shopify-Api-Version", "2024-07"],
      ["X-Shopify-Event-Id", uuid()],
      ["X-Shopify-Hmac-Sha256", ""],
      ["X-Shopify-Shop-Domain", SHOP],
      ["X-Shopify-Topic", topic],
      ["X-Shopify-Triggered-At", ctx.now.toISOString()],
      ["X-Shopify-Webhook-Id", uuid()],
    ],
    body: { kind: "json", value: make(ctx) },
    deliveryHeader: "X-Shopify-Webhook-Id",
  };
}

/** Shopify's catalog. */
export const catalog: TriggerCatalog = {
  provider: "shopify",
  source: "hand-written",
  events: Object.keys(TOPICS),
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
