/**
 * Generates Shopify's trigger catalog (src/providers/shopify/samples/topics.gen.ts)
 * from Shopify's Admin GraphQL schema as the pinned `@shopify/dev-mcp` ships
 * it (`dist/data/admin_<version>.json.gz`, an introspection result):
 * - every topic: each value of the `WebhookSubscriptionTopic` enum, named as
 *   its description names the topic (`orders/create`, `customer.tags_added`);
 * - per topic, its resource's GraphQL object type (`orders` → `Order`; a few
 *   named in {@linkcode RESOURCE_TYPES}) and a REST-shaped payload built from
 *   that type: fields in snake_case, the id an integer beside
 *   `admin_graphql_api_id`, references as `<name>_id`, enums in lower case,
 *   times as the trigger's time.
 * Webhook bodies are REST JSON, not GraphQL shapes: src/providers/shopify/catalog.ts
 * keeps its hand-written orders, products and customers and uses these for the rest.
 * `deno task trigger:catalog:shopify` writes the file;
 * tests/trigger/shopify_catalog_test.ts fails when it is stale.
 * @module
 */
import { NOW } from "../src/providers/_stamp.ts";

/** The Admin API version whose schema the catalog is read from. */
export const SHOPIFY_API_VERSION = "2026-10";

/** The output file, from the repository's root. */
export const SHOPIFY_GEN_PATH = "src/providers/shopify/samples/topics.gen.ts";

interface TypeRef {
  kind: string;
  name: string | null;
  ofType: TypeRef | null;
}
interface Field {
  name: string;
  args: { type: TypeRef; defaultValue: string | null }[];
  type: TypeRef;
  isDeprecated: boolean;
}
interface GqlType {
  kind: string;
  name: string;
  fields: Field[] | null;
  enumValues: { name: string; description: string | null; isDeprecated: boolean }[] | null;
}

/** Topic resources whose GraphQL object type is not the resource's name in the singular. */
export const RESOURCE_TYPES: Readonly<Record<string, string>> = {
  app_purchases_one_time: "AppPurchaseOneTime",
  checkouts: "AbandonedCheckout",
  collection_listings: "Collection",
  customer: "Customer",
  customer_account_settings: "CustomerAccountsV2",
  customer_groups: "Segment",
  customers_email_marketing_consent: "CustomerEmailMarketingConsentState",
  customers_marketing_consent: "CustomerSmsMarketingConsentState",
  customers_whats_app_marketing_consent: "CustomerSmsMarketingConsentState",
  discounts: "DiscountCodeBasic",
  disputes: "ShopifyPaymentsDispute",
  finance_app_staff_member: "StaffMember",
  markets_backup_region: "MarketRegionCountry",
  product_listings: "Product",
  profiles: "DeliveryProfile",
  scheduled_product_listings: "Product",
  shipping_addresses: "MailingAddress",
  subscription_billing_cycle_edits: "SubscriptionBillingCycle",
  tax_services: "TaxAppConfiguration",
  themes: "OnlineStoreTheme",
  variants: "ProductVariant",
};

/**
 * The node a payload's id names (`admin_graphql_api_id`) where the resource's type has no id of its own:
 * a customer's marketing consent is the customer's, a code discount is its `DiscountCodeNode`. Other types
 * without an id (a publication, a locale, a setting) get no id.
 */
export const NODE_OF: Readonly<Record<string, string>> = {
  CustomerEmailMarketingConsentState: "Customer",
  CustomerSmsMarketingConsentState: "Customer",
  DiscountCodeBasic: "DiscountCodeNode",
};

/**
 * The source package, pinned by version and by the registry's integrity. It is read as data only, so it is
 * not a dependency in deno.json (its own dependency tree, Shopify's whole CLI, is ~300 packages): `npm pack`
 * fetches its one tarball (npm's cache keeps it), which is checked against the integrity before use.
 */
export const SOURCE = {
  name: "@shopify/dev-mcp",
  version: "1.16.0",
  integrity:
    "sha512-tqgRnK7sQhjew+htxtleTH23nXB5fZcsrhWgEkomsorGXvLOB2mh2upwZm8uzuTDNTZnqtLMe64yIwh6s2awtw==",
} as const;

async function _run(cmd: string, args: string[], cwd?: string): Promise<Uint8Array<ArrayBuffer>> {
  const out = await new Deno.Command(cmd, {
    args,
    ...(cwd ? { cwd } : {}),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  if (!out.success) {
    throw new Error(`${cmd} ${args.join(" ")} failed (${out.code}): ${new TextDecoder().decode(out.stderr)}`);
  }
  return out.stdout;
}

/** The pinned tarball's path (fetched once into a temp directory per process), its integrity checked. */
let tarball: Promise<string> | undefined;
function _tarball(): Promise<string> {
  tarball ??= (async () => {
    const dir = await Deno.makeTempDir({ prefix: "hooktap_shopify_source_" });
    const npm = Deno.build.os === "windows" ? "npm.cmd" : "npm";
    const name = new TextDecoder().decode(
      await _run(npm, ["pack", "--silent", "--pack-destination", dir, `${SOURCE.name}@${SOURCE.version}`]),
    ).trim().split("\n").at(-1)!;
    const path = `${dir}/${name}`;
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-512", await Deno.readFile(path)));
    const integrity = `sha512-${digest.toBase64()}`;
    if (integrity !== SOURCE.integrity) {
      throw new Error(`${SOURCE.name}@${SOURCE.version}: integrity ${integrity}, pinned ${SOURCE.integrity}`);
    }
    return path;
  })();
  return tarball;
}

/** The Admin GraphQL schema's types, by name, from the pinned `@shopify/dev-mcp`. */
export async function adminSchema(): Promise<{ id: string; types: Map<string, GqlType> }> {
  const id = `${SOURCE.name}@${SOURCE.version}`;
  const gz = await _run("tar", [
    "-xzOf",
    await _tarball(),
    `package/dist/data/admin_${SHOPIFY_API_VERSION}.json.gz`,
  ]);
  const text = await new Response(new Blob([gz]).stream().pipeThrough(new DecompressionStream("gzip")))
    .text();
  const schema = JSON.parse(text).data.__schema as { types: GqlType[] };
  return { id, types: new Map(schema.types.map((t) => [t.name, t])) };
}

/** Every topic of `WebhookSubscriptionTopic`: its name as Shopify sends it, the enum value, deprecated or not. */
export function webhookTopics(
  types: Map<string, GqlType>,
): { topic: string; value: string; deprecated: boolean }[] {
  const e = types.get("WebhookSubscriptionTopic");
  if (e?.enumValues == null) throw new Error("the schema has no WebhookSubscriptionTopic enum");
  return e.enumValues.map((v) => {
    const topic = v.description?.match(/`([a-z0-9_]+[/.][a-z0-9_]+)`/)?.[1];
    if (topic === undefined) throw new Error(`${v.name}'s description names no topic: ${v.description}`);
    return { topic, value: v.name, deprecated: v.isDeprecated };
  });
}

const _pascal = (s: string) => s.split("_").map((w) => w[0]!.toUpperCase() + w.slice(1)).join("");
const _snake = (s: string) =>
  s.replace(/([a-z0-9])([A-Z])/g, "$1_$2").replace(/([A-Z])([A-Z][a-z])/g, "$1_$2")
    .toLowerCase();

/** The GraphQL object type of a topic's resource (`fulfillment_orders/split` → `FulfillmentOrder`), or "". */
export function resourceType(topic: string, types: Map<string, GqlType>): string {
  const resource = topic.split(/[/.]/)[0]!;
  const named = RESOURCE_TYPES[resource];
  if (named !== undefined) return types.get(named)?.kind === "OBJECT" ? named : "";
  const p = _pascal(resource);
  for (const c of [p, p.replace(/ies$/, "y"), p.replace(/es$/, ""), p.replace(/s$/, "")]) {
    if (types.get(c)?.kind === "OBJECT") return c;
  }
  return "";
}

function _unwrap(t: TypeRef): { named: TypeRef; list: boolean } {
  let list = false;
  let cur = t;
  while (cur.ofType !== null) {
    if (cur.kind === "LIST") list = true;
    cur = cur.ofType;
  }
  return { named: cur, list };
}

/** A stable integer of 13 digits for `seed` (ids in the generated file do not change between runs). */
function _id(seed: string): number {
  let h = 2166136261;
  for (const ch of seed) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
  return 1_000_000_000_000 + (h % 9_000_000_000) * 100 + seed.length % 100;
}

const STRINGS: Readonly<Record<string, string>> = {
  email: "jenny.rosen@example.com",
  phone: "+16135550135",
  first_name: "Jenny",
  last_name: "Rosen",
  name: "Example",
  display_name: "Jenny Rosen",
  title: "Example",
  handle: "example",
  currency_code: "USD",
  currency: "USD",
  country_code: "US",
  country: "United States",
  province: "Ontario",
  province_code: "ON",
  city: "Ottawa",
  address1: "150 Elgin Street",
  address2: "Suite 800",
  zip: "K2P 1L4",
  company: "Acme",
  note: "",
  sku: "SKU-001",
  vendor: "Acme",
  product_type: "Shirts",
  tags: "example",
  locale: "en",
  iso_code: "en",
  code: "EXAMPLE10",
  token: "7c4e1a2b9d3f4e5a8b6c0d1e2f3a4b5c",
  query: "number_of_orders > 0",
};

function _scalar(scalar: string, field: string): unknown {
  switch (scalar) {
    case "DateTime":
      return NOW;
    case "Date":
      return "2026-01-01";
    case "Boolean":
      return false;
    case "Int":
    case "BigInt":
      return 1;
    case "Float":
      return 1.5;
    case "Decimal":
    case "Money":
      return "10.00";
    case "UnsignedInt64":
      return "1";
    case "URL":
      return "https://hooktap-dev.myshopify.com/";
    case "HTML":
      return "<p>Example</p>";
    case "JSON":
      return {};
    case "Color":
      return "#000000";
    case "UtcOffset":
      return "-05:00";
    case "ID":
      return _id(field);
    default:
      return STRINGS[field] ?? (field.endsWith("email") ? "jenny.rosen@example.com" : "example");
  }
}

/** Enum values REST payloads show (as they are), by enum; else a common state ({@linkcode COMMON_ENUM}), else the first, in lower case. */
const ENUMS: Readonly<Record<string, string>> = {
  CountryCode: "US",
  CurrencyCode: "USD",
  LanguageCode: "EN",
};
const COMMON_ENUM = ["ACTIVE", "OPEN", "ENABLED", "SUCCESS", "PAID", "COMPLETED", "PENDING", "MAIN"];

/** Fields no REST payload carries (GraphQL plumbing, connections, per-call lookups). */
const SKIP =
  /^(defaultCursor|legacyResourceId|storefrontId|translations|events|metafields?|metafieldDefinitions)$/;

/**
 * A REST-shaped value of GraphQL object type `name`: scalars and enums as REST writes them, a referenced
 * node as `<field>_id`, money as `"10.00"` (a MoneyBag as `<field>_set`), other objects nested once.
 */
export function restPayload(types: Map<string, GqlType>, name: string, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const type = types.get(name);
  for (const f of type?.fields ?? []) {
    if (f.isDeprecated || SKIP.test(f.name)) continue;
    if (f.args.some((a) => a.type.kind === "NON_NULL" && a.defaultValue === null)) continue;
    const { named, list } = _unwrap(f.type);
    const key = _snake(f.name);
    const t = types.get(named.name ?? "");
    if (t === undefined) continue;
    if (t.kind === "SCALAR") {
      if (f.name === "id") {
        const id = _id(name);
        out.id = id;
        out.admin_graphql_api_id = `gid://shopify/${name}/${id}`;
      } else {
        const v = _scalar(t.name, key);
        out[key] = list ? [v] : v;
      }
    } else if (t.kind === "ENUM") {
      const values = (t.enumValues ?? []).filter((e) => !e.isDeprecated).map((e) => e.name);
      const v = ENUMS[t.name] ?? (values.find((e) => COMMON_ENUM.includes(e)) ?? values[0])?.toLowerCase() ??
        null;
      out[key] = list ? [v] : v;
    } else if (t.kind === "OBJECT") {
      if (t.name.endsWith("Connection") || t.name === "Count") continue;
      if (t.name === "MoneyV2") out[key] = "10.00";
      else if (t.name === "MoneyBag") {
        const money = { amount: "10.00", currency_code: "USD" };
        out[key.endsWith("_set") ? key : `${key}_set`] = { shop_money: money, presentment_money: money };
      } else if (t.fields?.some((x) => x.name === "id") && !list) out[`${key}_id`] = _id(t.name);
      else if (depth === 0 && !t.fields?.some((x) => x.name === "id")) {
        const nested = restPayload(types, t.name, depth + 1);
        out[key] = list ? [nested] : nested;
      }
    }
  }
  return out;
}

/** Each topic, its resource's type and the payload of each type used. */
export async function shopifyTopics(): Promise<{
  id: string;
  topics: { topic: string; value: string; type: string; node: string; deprecated: boolean }[];
  payloads: Map<string, Record<string, unknown>>;
}> {
  const { id, types } = await adminSchema();
  const topics = webhookTopics(types).map((t) => {
    const type = resourceType(t.topic, types);
    const own = types.get(type)?.fields?.some((f) => f.name === "id") === true;
    return { ...t, type, node: own ? type : NODE_OF[type] ?? "" };
  });
  const payloads = new Map<string, Record<string, unknown>>();
  for (const t of topics) {
    if (t.type !== "" && !payloads.has(t.type)) payloads.set(t.type, restPayload(types, t.type));
  }
  return { id, topics, payloads: new Map([...payloads].sort(([a], [b]) => a.localeCompare(b))) };
}

/** The generated file's text. */
export async function generateShopifyCatalog(): Promise<string> {
  const { id, topics, payloads } = await shopifyTopics();
  return `// Generated by \`deno task trigger:catalog:shopify\` from ${id}. Do not edit.\n` +
    "// deno-fmt-ignore-file\n// deno-lint-ignore-file\n\n" +
    `/** Where Shopify's topics come from. */\nexport const SHOPIFY_SOURCE = ${
      JSON.stringify(`generated from ${id}`)
    };\n\n` +
    `/** The Admin API version of the schema the topics were read from (X-Shopify-API-Version). */\n` +
    `export const SHOPIFY_API_VERSION = ${JSON.stringify(SHOPIFY_API_VERSION)};\n\n` +
    "/**\n * Every WebhookSubscriptionTopic: the topic, its enum value, its resource's GraphQL type and the\n" +
    ' * node its id names (`gid://shopify/<node>/<id>`) ("": none).\n */\n' +
    "export const SHOPIFY_TOPICS: Readonly<\n" +
    "  Record<string, { value: string; type: string; node: string; deprecated: boolean }>\n> = {\n" +
    topics.map((t) =>
      `  ${JSON.stringify(t.topic)}: { value: ${JSON.stringify(t.value)}, type: ${JSON.stringify(t.type)}, ` +
      `node: ${JSON.stringify(t.node)}, deprecated: ${t.deprecated} },\n`
    ).join("") + "};\n\n" +
    "/** A REST-shaped payload built from each resource's GraphQL object type. */\n" +
    "export const SHOPIFY_PAYLOADS: Readonly<Record<string, Record<string, unknown>>> = {\n" +
    [...payloads].map(([t, p]) => `  ${JSON.stringify(t)}: ${JSON.stringify(p)},\n`).join("") + "};\n";
}

if (import.meta.main) {
  const root = new URL("../", import.meta.url);
  await Deno.mkdir(new URL("src/providers/shopify/samples", root), { recursive: true });
  await Deno.writeTextFile(new URL(SHOPIFY_GEN_PATH, root), await generateShopifyCatalog());
}
