/**
 * Shopify's catalog against Shopify's own sources: its topics are the Admin
 * API's `WebhookSubscriptionTopic` enum as the pinned `@shopify/dev-mcp`
 * ships it (read here from the package), every topic as `trigger` sends it
 * over loopback is accepted by Shopify's official library
 * (`@shopify/shopify-api`'s `shopify.webhooks.validate`, web-api adapter),
 * and the generated file is what its generator writes.
 */
import "@shopify/shopify-api/adapters/web-api";
import assert from "node:assert/strict";
import { ApiVersion, LogSeverity, shopifyApi } from "@shopify/shopify-api";
import { catalog } from "../../src/providers/shopify/catalog.ts";
import {
  SHOPIFY_API_VERSION as GEN_VERSION,
  SHOPIFY_TOPICS,
} from "../../src/providers/shopify/samples/topics.gen.ts";
import { trigger } from "../../src/trigger/run.ts";
import {
  adminSchema,
  generateShopifyCatalog,
  SHOPIFY_API_VERSION,
  SHOPIFY_GEN_PATH,
  webhookTopics,
} from "../../scripts/shopify_catalog.ts";
import { startRawServer } from "./_raw.ts";

const SECRET = "shopify-app-secret";

const shopify = shopifyApi({
  apiKey: "hooktap-test",
  apiSecretKey: SECRET,
  hostName: "localhost",
  isEmbeddedApp: false,
  apiVersion: ApiVersion.April26,
  logger: { level: LogSeverity.Error },
});

Deno.test("Shopify's catalog holds >= 90% of the WebhookSubscriptionTopic enum @shopify/dev-mcp ships", async () => {
  const { types } = await adminSchema();
  const topics = webhookTopics(types).map((t) => t.topic);
  assert.ok(topics.length >= 150, `${topics.length} topics in the enum`);
  const covered = topics.filter((t) => catalog.events.includes(t));
  assert.ok(
    covered.length >= 0.9 * topics.length,
    `${covered.length}/${topics.length}; missing: ${topics.filter((t) => !covered.includes(t)).join(", ")}`,
  );
  assert.match(catalog.source, /^generated from @shopify\/dev-mcp@\d+\.\d+\.\d+$/);
  assert.equal(GEN_VERSION, SHOPIFY_API_VERSION);
});

Deno.test("every Shopify topic, sent over loopback, passes shopify.webhooks.validate and is REST-shaped", async () => {
  await using server = startRawServer();
  const failures: string[] = [];
  for (const topic of catalog.events) {
    await trigger({ provider: "shopify", event: topic, to: server.url, secret: SECRET });
    const r = server.requests.at(-1)!;
    const headers = new Headers(r.headers);
    const rawBody = new TextDecoder().decode(r.body);
    const result = await shopify.webhooks.validate({
      rawBody,
      rawRequest: new Request(server.url, { method: "POST", headers, body: rawBody }),
    });
    if (!result.valid) failures.push(`${topic}: refused (${result.reason})`);
    if (headers.get("x-shopify-topic") !== topic) failures.push(`${topic}: X-Shopify-Topic`);
    if (headers.get("x-shopify-api-version") !== GEN_VERSION) {
      failures.push(`${topic}: X-Shopify-API-Version`);
    }
    for (const h of ["x-shopify-shop-domain", "x-shopify-webhook-id", "x-shopify-event-id"]) {
      if (!headers.get(h)) failures.push(`${topic}: no ${h}`);
    }
    if (Number.isNaN(Date.parse(headers.get("x-shopify-triggered-at") ?? ""))) {
      failures.push(`${topic}: X-Shopify-Triggered-At`);
    }
    const body = JSON.parse(rawBody) as Record<string, unknown>;
    if (rawBody.includes("{{now}}")) failures.push(`${topic}: a time placeholder left`);
    const origin = catalog.entryOrigin?.(topic)?.from ?? "";
    if (!origin.startsWith("schema")) continue;
    // Built from the schema: REST keys (snake_case), an integer id, the GraphQL id beside it unless deleted.
    const camel = Object.keys(body).filter((k) => /[A-Z]/.test(k));
    if (camel.length > 0) failures.push(`${topic}: camelCase keys ${camel.join(", ")}`);
    const deleted = /\/(delete|destroy)$/.test(topic);
    const { type = "", node = "" } = SHOPIFY_TOPICS[topic] ?? {};
    const identified = deleted || node !== "" || type === "";
    if (identified && !Number.isSafeInteger(body.id)) failures.push(`${topic}: id ${body.id}`);
    const gid = new RegExp(`^gid://shopify/${node || "\\w+"}/${body.id}$`);
    if (!deleted && identified && !gid.test(String(body.admin_graphql_api_id))) {
      failures.push(`${topic}: admin_graphql_api_id ${body.admin_graphql_api_id}`);
    }
    if (deleted && Object.keys(body).join() !== "id") {
      failures.push(`${topic}: a deletion carries more than id`);
    }
    if (!deleted && type !== "" && Object.keys(body).length < (node === "" ? 1 : 3)) {
      failures.push(`${topic}: only ${Object.keys(body).join(", ")}`);
    }
  }
  assert.deepEqual(failures, []);
  assert.equal(server.requests.length, catalog.events.length);
});

Deno.test("a body signed with another secret is refused by shopify.webhooks.validate (the check can fail)", async () => {
  await using server = startRawServer();
  await trigger({ provider: "shopify", event: "fulfillment_orders/split", to: server.url, secret: "other" });
  const r = server.requests.at(-1)!;
  const rawBody = new TextDecoder().decode(r.body);
  const result = await shopify.webhooks.validate({
    rawBody,
    rawRequest: new Request(server.url, { method: "POST", headers: new Headers(r.headers), body: rawBody }),
  });
  assert.equal(result.valid, false);
});

Deno.test("a flow's schema-built topics name the order and customer its hand-written ones made", async () => {
  await using server = startRawServer();
  const steps = ["orders/create", "fulfillment_orders/split", "refunds/create"].map((event) => ({ event }));
  await trigger({ provider: "shopify", event: "flow", steps, to: server.url, secret: SECRET });
  const [order, split, refund] = server.requests.map((r) => JSON.parse(new TextDecoder().decode(r.body)));
  assert.equal(split.order_id, order.id);
  assert.equal(refund.order_id, order.id);
  assert.match(split.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d-00:00$/);
});

Deno.test(`${SHOPIFY_GEN_PATH} is up to date (else run \`deno task trigger:catalog:shopify\`)`, async () => {
  const root = new URL("../../", import.meta.url);
  const now = await Deno.readTextFile(new URL(SHOPIFY_GEN_PATH, root));
  assert.ok(now === await generateShopifyCatalog(), `${SHOPIFY_GEN_PATH} is stale`);
});
