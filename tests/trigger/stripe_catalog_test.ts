/**
 * Every Stripe entry of the trigger catalog, sent over loopback by `trigger`
 * and run through the oracles: the official `stripe` library's
 * `webhooks.constructEvent` must accept the signature and parse the event as
 * its type; and the delivered payload, written as a literal annotated with
 * the event's own type from the `stripe` package (`Stripe.InvoicePaidEvent`),
 * must pass `deno check` (every required field present with its declared
 * type, no field Stripe does not declare). Failures are reported by entry
 * name. Also: coverage of the package's `Event.Type`, the generated files
 * are what the generator writes, entries and flows agree with themselves.
 */
import assert from "node:assert/strict";
import Stripe from "stripe";
import { join } from "node:path";
import { loadCatalog } from "../../src/trigger/registry.ts";
import { trigger } from "../../src/trigger/run.ts";
import { STRIPE_API_VERSION, STRIPE_EVENTS } from "../../src/providers/stripe/samples/index.gen.ts";
import { render, STRIPE_DIR, stripePackage } from "../../scripts/stripe_catalog.ts";
import { startRawServer } from "./_raw.ts";

const SECRET = "whsec_hooktap_stripe_table";
const ROOT = new URL("../../", import.meta.url).pathname;
const stripe = new Stripe("sk_test_hooktap");

/** The interface name of each event type (`invoice.paid` → `InvoicePaidEvent`), from the package. */
function eventInterfaces(): Map<string, string> {
  const text = Deno.readTextFileSync(join(stripePackage().dir, "types", "EventTypes.d.ts"));
  const out = new Map<string, string>();
  for (const m of text.matchAll(/interface (\w+Event)\s+extends EventBase \{\s*type: '([^']+)'/g)) {
    out.set(m[2]!, m[1]!);
  }
  return out;
}

/** Each entry and each step of each sequence, as delivered: `name` is the event type, `label` says which. */
async function sendAll(events: readonly string[], sequences: readonly string[]) {
  await using server = startRawServer();
  const out: { name: string; label: string; text: string; signature: string }[] = [];
  for (const sent of [...events, ...sequences]) {
    const from = server.requests.length;
    const outcome = await trigger({ provider: "stripe", event: sent, to: server.url, secret: SECRET });
    assert.ok(outcome.deliveries.every((d) => d.ok), sent);
    for (const [i, r] of server.requests.slice(from).entries()) {
      const signature = r.headers.find(([k]) => k.toLowerCase() === "stripe-signature")?.[1] ?? "";
      const name = outcome.deliveries[i]!.event;
      const label = name === sent ? name : `${sent} step ${i + 1} (${name})`;
      out.push({ name, label, text: new TextDecoder().decode(r.body), signature });
    }
  }
  return out;
}

Deno.test("every Stripe entry and sequence step is accepted by stripe.webhooks.constructEventAsync and type-checks as its event (>= 98%)", async () => {
  const catalog = await loadCatalog("stripe");
  const sent = await sendAll(catalog.events, Object.keys(catalog.sequences));
  assert.ok(sent.length > catalog.events.length + 20, "the sequences' steps are checked too");
  const libraryFailures: string[] = [];
  for (const { name, label, text, signature } of sent) {
    try {
      const event = await stripe.webhooks.constructEventAsync(text, signature, SECRET);
      if (event.type !== name) libraryFailures.push(`${label}: parsed as ${event.type}`);
    } catch (e) {
      libraryFailures.push(`${label}: ${(e as Error).message}`);
    }
  }
  assert.deepEqual(libraryFailures, []);

  // Oracle 2: Stripe's own declarations. One line per entry, so an error's line names the entry.
  const ifaces = eventInterfaces();
  const header = 'import type Stripe from "stripe";\n';
  const lines = sent.map(({ name, text }, i) => {
    const iface = ifaces.get(name) ?? "Event";
    return `export const e${i}: Stripe.${iface} = ${JSON.stringify(JSON.parse(text))};`;
  });
  const dir = await Deno.makeTempDir({ prefix: "hooktap_stripe_check_" });
  try {
    const file = join(dir, "payloads.ts");
    await Deno.writeTextFile(file, header + lines.join("\n") + "\n");
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["check", "--quiet", "--config", join(ROOT, "deno.json"), file],
      cwd: ROOT,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    const failed = new Map<string, string>();
    // deno-lint-ignore no-control-regex
    const plain = text.replace(/\x1b\[[0-9;]*m/g, "");
    const blocks = plain.split(/\n(?=TS\d+ \[ERROR\])/);
    for (const block of blocks) {
      const at = block.match(/payloads\.ts:(\d+):\d+/);
      if (at === null) continue;
      const entry = sent[Number(at[1]) - 2];
      if (entry !== undefined && !failed.has(entry.label)) {
        failed.set(entry.label, `${entry.label}: ${block.split("\n").slice(0, 3).join(" ").slice(0, 300)}`);
      }
    }
    assert.ok(
      out.success || failed.size > 0,
      `deno check failed outside any entry:\n${plain.slice(0, 2000)}`,
    );
    for (const name of catalog.events) assert.ok(ifaces.has(name), `${name}: Stripe declares no such event`);
    const valid = sent.length - failed.size;
    assert.ok(
      valid / sent.length >= 0.98,
      `${valid} of ${sent.length} type-check as their Stripe event; not:\n${[...failed.values()].join("\n")}`,
    );
    // Which ones do not, by name (a change here is a change in what Stripe's types accept).
    assert.deepEqual([...failed.keys()].sort(), [], [...failed.values()].join("\n"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the Stripe catalog covers >= 250 of the stripe package's Event.Type, with its API version", () => {
  const { dir, apiVersion } = stripePackage();
  const text = Deno.readTextFileSync(join(dir, "types", "Events.d.ts"));
  const union = text.slice(text.indexOf("type Type ="), text.indexOf(";", text.indexOf("type Type =")));
  const types = [...union.matchAll(/'([^']+)'/g)].map((m) => m[1]!);
  assert.ok(types.length >= 250, `the package lists ${types.length}`);
  const ours = new Set(Object.keys(STRIPE_EVENTS));
  const missing = types.filter((t) => !ours.has(t));
  assert.ok(types.length - missing.length >= 250, `missing: ${missing.join(", ")}`);
  assert.equal(STRIPE_API_VERSION, apiVersion);
});

Deno.test("the generated Stripe catalog is what `deno task trigger:catalog:stripe` writes", async () => {
  const files = render();
  for (const [path, text] of files) {
    const have = await Deno.readTextFile(join(ROOT, path)).catch(() => "(missing)");
    assert.ok(have === text, `${path} is stale: run \`deno task trigger:catalog:stripe\``);
  }
  const onDisk = [...Deno.readDirSync(join(ROOT, STRIPE_DIR))].map((e) => `${STRIPE_DIR}/${e.name}`);
  assert.deepEqual(onDisk.filter((p) => !files.has(p)), [], "files the generator no longer writes");
});

Deno.test("Stripe entries agree with their event: paid is paid, succeeded succeeded, refunded has its refund", async () => {
  await using server = startRawServer();
  const body = async (event: string) => {
    await trigger({ provider: "stripe", event, to: server.url, secret: SECRET });
    return JSON.parse(new TextDecoder().decode(server.requests.at(-1)!.body));
  };
  const paid = (await body("invoice.paid")).data.object;
  assert.equal(paid.status, "paid");
  assert.equal(paid.amount_paid, paid.amount_due);
  assert.equal(paid.amount_remaining, 0);
  assert.match(paid.id, /^in_/);
  assert.match(paid.customer, /^cus_/);
  assert.match(paid.parent.subscription_details.subscription, /^sub_/);
  const pi = (await body("payment_intent.succeeded")).data.object;
  assert.equal(pi.object, "payment_intent");
  assert.equal(pi.status, "succeeded");
  assert.equal(pi.amount_received, pi.amount);
  assert.match(pi.id, /^pi_/);
  const created = (await body("payment_intent.created")).data.object;
  assert.equal(created.status, "requires_payment_method");
  assert.equal(created.last_payment_error, null);
  const failed = (await body("payment_intent.payment_failed")).data.object;
  assert.equal(failed.last_payment_error.code, "card_declined");
  const refunded = (await body("charge.refunded")).data.object;
  assert.equal(refunded.refunded, true);
  assert.equal(refunded.amount_refunded, refunded.amount);
  assert.equal(refunded.refunds.data.length, 1);
  assert.equal(refunded.refunds.data[0].charge, refunded.id);
  assert.match(refunded.refunds.data[0].id, /^re_/);
  const sub = (await body("customer.subscription.deleted")).data.object;
  assert.equal(sub.status, "canceled");
  assert.equal(typeof sub.canceled_at, "number");
  const session = await body("checkout.session.completed");
  assert.equal(session.data.object.object, "checkout.session");
  assert.equal(session.data.object.status, "complete");
  assert.equal(session.data.object.payment_status, "paid");
  assert.equal(session.api_version, STRIPE_API_VERSION);
  const now = Date.now() / 1000;
  assert.ok(Math.abs(session.created - now) < 60 && Math.abs(session.data.object.created - now) < 600);
});

Deno.test("Stripe flows look real: ids cross-referenced, created increasing, the first invoice is subscription_create", async () => {
  await using server = startRawServer();
  const bodies = async (event: string) => {
    const before = server.requests.length;
    await trigger({ provider: "stripe", event, to: server.url, secret: SECRET });
    return server.requests.slice(before).map((r) => JSON.parse(new TextDecoder().decode(r.body)));
  };
  const sub = await bodies("subscription");
  const byType = (t: string) => sub.find((b) => b.type === t)!.data.object;
  const customer = byType("customer.created").id;
  const subscription = byType("customer.subscription.created");
  assert.equal(subscription.customer, customer);
  assert.equal(subscription.status, "incomplete");
  for (const t of ["invoice.created", "invoice.finalized", "invoice.paid", "invoice.payment_succeeded"]) {
    const inv = byType(t);
    assert.equal(inv.billing_reason, "subscription_create", t);
    assert.equal(inv.customer, customer, t);
    assert.equal(inv.parent.subscription_details.subscription, subscription.id, t);
    assert.equal(inv.id, byType("invoice.created").id, t);
  }
  assert.equal(byType("customer.subscription.updated").status, "active");
  assert.equal(sub.at(-1).data.previous_attributes.status, "incomplete");
  const created = sub.map((b) => b.created);
  for (let i = 1; i < created.length; i++) assert.ok(created[i] > created[i - 1], `step ${i}: ${created}`);
  assert.equal(new Set(sub.map((b) => b.id)).size, sub.length, "each event its own id");

  const checkout = await bodies("checkout");
  const c = (t: string) => checkout.find((b) => b.type === t)!.data.object;
  assert.deepEqual(checkout.map((b) => b.type), [
    "product.created",
    "price.created",
    "customer.created",
    "payment_intent.created",
    "payment_method.attached",
    "charge.succeeded",
    "payment_intent.succeeded",
    "checkout.session.completed",
  ]);
  assert.equal(c("price.created").product, c("product.created").id);
  assert.equal(c("checkout.session.completed").payment_intent, c("payment_intent.succeeded").id);
  assert.equal(c("checkout.session.completed").customer, c("customer.created").id);
  assert.equal(c("charge.succeeded").payment_intent, c("payment_intent.succeeded").id);
  assert.equal(c("payment_intent.succeeded").latest_charge, c("charge.succeeded").id);
  assert.equal(c("payment_method.attached").customer, c("customer.created").id);
  assert.notEqual(
    c("customer.created").id,
    (await bodies("customer.created"))[0].data.object.id,
    "fresh per run",
  );
});
