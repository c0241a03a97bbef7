/**
 * `trigger`'s overrides at parity with `stripe trigger`: `--unset` a field,
 * `--set STEP:path=value` in one step of a sequence, `--fixture` a file of
 * one's own steps, `--api-version` for Stripe. Each delivery still passes the
 * official library's `constructEventAsync` (signed afresh after the change).
 * Through the real CLI (a subprocess) where the options are parsed, in-process
 * where only the semantics are under test.
 */
import assert from "node:assert/strict";
import Stripe from "stripe";
import { UsageError } from "../../src/errors.ts";
import { trigger } from "../../src/trigger/run.ts";
import { runCli, withTmpDir, writeFile } from "../_helpers.ts";
import { startRawServer } from "./_raw.ts";

const SECRET = "whsec_hooktap_overrides";
const stripe = new Stripe("sk_test_hooktap");

interface Body {
  id: string;
  type: string;
  api_version: string;
  data: { object: Record<string, unknown> };
}

async function verified(server: ReturnType<typeof startRawServer>, from: number): Promise<Body[]> {
  const out: Body[] = [];
  for (const r of server.requests.slice(from)) {
    const text = new TextDecoder().decode(r.body);
    const sig = r.headers.find(([k]) => k.toLowerCase() === "stripe-signature")![1];
    await stripe.webhooks.constructEventAsync(text, sig, SECRET); // throws when the signature is wrong
    out.push(JSON.parse(text));
  }
  return out;
}

Deno.test("--set STEP:path=value changes one step; --unset removes a field from every step or one", async () => {
  await using server = startRawServer();
  await trigger({
    provider: "stripe",
    event: "subscription",
    to: server.url,
    secret: SECRET,
    set: ["invoice.paid:data.object.amount_paid=0", '3:data.object.email="someone@example.com"'],
    unset: ["data.object.metadata", "invoice.created:data.object.lines"],
  });
  const bodies = await verified(server, 0);
  const by = (t: string) => bodies.find((b) => b.type === t)!;
  assert.equal(by("invoice.paid").data.object.amount_paid, 0);
  assert.equal(by("invoice.payment_succeeded").data.object.amount_paid, 2000, "only the step named");
  assert.equal(bodies[2]!.type, "customer.created");
  assert.equal(bodies[2]!.data.object.email, "someone@example.com");
  for (const b of bodies) assert.ok(!("metadata" in b.data.object), `${b.type} still has metadata`);
  assert.ok(!("lines" in by("invoice.created").data.object));
  assert.ok("lines" in by("invoice.finalized").data.object);
});

Deno.test("bad overrides are refused before anything is sent, naming the fix", async () => {
  await using server = startRawServer();
  const base = { provider: "stripe", to: server.url, secret: SECRET };
  const refused = async (request: Parameters<typeof trigger>[0], pattern: RegExp) => {
    await assert.rejects(
      () => trigger(request),
      (e: Error) => e instanceof UsageError && pattern.test(e.message),
    );
  };
  await refused(
    { ...base, event: "checkout", set: ["invoice.paid:data.object.amount_paid=0"] },
    /"invoice\.paid" names no step.*1 to 8.*checkout\.session\.completed/,
  );
  await refused({ ...base, event: "checkout", unset: ["9:data.object.id"] }, /"9" names no step/);
  // A path only some steps of a sequence have: which step lacks it, and the STEP: prefix that fixes it.
  await refused(
    { ...base, event: "checkout", set: ["data.object.amount=5"] },
    /^Step 1 of 8 \(product\.created\): --set data\.object\.amount: the body has no field.*or change only the steps that have it with a STEP: prefix.*--set checkout\.session\.completed:path=value/,
  );
  await refused(
    { ...base, event: "checkout", unset: ["data.object.amount"] },
    /^Step 1 of 8 \(product\.created\): --unset data\.object\.amount:.*\(--unset checkout\.session\.completed:path\)/,
  );
  await refused(
    { ...base, event: "invoice.paid", unset: ["data.object.nope"] },
    /--unset data\.object\.nope: the body has no field/,
  );
  await refused(
    { ...base, event: "invoice.paid", apiVersion: "2024-06-21" },
    /not a Stripe API version \(did you mean 2024-06-20\?\)/,
  );
  // A real version later than the catalog's (stripe@23.1.0 pins 2026-10-28.endive) is not called "not a Stripe
  // API version": it is one hooktap cannot shape.
  await refused(
    { ...base, event: "invoice.paid", apiVersion: "2026-10-28.endive" },
    /--api-version 2026-10-28\.endive is later than the newest Stripe API version hooktap's catalog knows \(\d{4}-\d{2}-\d{2}\.[a-z]+\)/,
  );
  await refused(
    { provider: "github", event: "ping", to: server.url, secret: "s", apiVersion: "2024-06-20" },
    /--api-version shapes Stripe's payloads; GitHub's/,
  );
  await refused(
    { ...base, event: "x", steps: [{ event: "checkout" }] },
    /a fixture step is one event, and checkout is a sequence/,
  );
  await refused({ ...base, event: "x", steps: [{ event: "invoice.payed" }] }, /did you mean invoice\.paid/);
  assert.equal(server.requests.length, 0);
});

Deno.test("--api-version: the envelope says it; before basil an invoice has paid and subscription, a subscription its period", async () => {
  await using server = startRawServer();
  const send = async (event: string, apiVersion?: string) => {
    const from = server.requests.length;
    await trigger({
      provider: "stripe",
      event,
      to: server.url,
      secret: SECRET,
      ...(apiVersion ? { apiVersion } : {}),
    });
    return (await verified(server, from))[0]!;
  };
  const old = await send("invoice.paid", "2024-06-20");
  assert.equal(old.api_version, "2024-06-20");
  assert.equal(old.data.object.paid, true);
  assert.match(String(old.data.object.subscription), /^sub_/);
  assert.ok(!("parent" in old.data.object));
  const sub = await send("customer.subscription.created", "2024-06-20");
  assert.equal(typeof sub.data.object.current_period_end, "number");
  const now = await send("invoice.paid");
  assert.ok(
    !("paid" in now.data.object) && "parent" in now.data.object,
    "the pinned version is basil or later",
  );
});

Deno.test("--fixture sends a file's steps in order through the CLI; a Stripe CLI fixture and an event beside it are refused", async () => {
  await using tmp = await withTmpDir();
  await using server = startRawServer();
  await writeFile(
    tmp.path,
    "steps.json",
    JSON.stringify({
      steps: [
        { event: "customer.created", set: { "data.object.name": "Ada Lovelace" } },
        { event: "invoice.paid", unset: ["data.object.metadata"] },
        {
          event: "charge.succeeded",
          body: { id: "evt_mine", object: "event", type: "charge.succeeded", data: {} },
        },
      ],
    }),
  );
  const ok = await runCli([
    "trigger",
    "stripe",
    "--fixture",
    "steps.json",
    "--to",
    server.url,
    "--secret",
    SECRET,
  ], {
    cwd: tmp.path,
  });
  assert.equal(ok.code, 0, ok.stderr);
  const bodies = await verified(server, 0);
  assert.deepEqual(bodies.map((b) => b.type), ["customer.created", "invoice.paid", "charge.succeeded"]);
  assert.equal(bodies[0]!.data.object.name, "Ada Lovelace");
  assert.ok(!("metadata" in bodies[1]!.data.object));
  assert.equal(bodies[2]!.id, "evt_mine");
  assert.equal(bodies[1]!.data.object.customer, bodies[0]!.data.object.id, "one run's ids");

  await writeFile(
    tmp.path,
    "cli.json",
    JSON.stringify({ fixtures: [{ name: "customer", path: "/v1/customers" }] }),
  );
  const cli = await runCli(["trigger", "stripe", "--fixture", "cli.json", "--to", server.url], {
    cwd: tmp.path,
  });
  assert.equal(cli.code, 2);
  assert.match(cli.stderr, /Stripe CLI fixture .*API calls/);
  const both = await runCli([
    "trigger",
    "stripe",
    "invoice.paid",
    "--fixture",
    "steps.json",
    "--to",
    server.url,
  ], {
    cwd: tmp.path,
  });
  assert.equal(both.code, 2);
  assert.match(both.stderr, /no event to name/);
  const step = await runCli(
    [
      "trigger",
      "stripe",
      "checkout",
      "--set",
      "4:data.object.amount=5",
      "--unset",
      "data.object.nope",
      "--to",
      server.url,
    ],
    { cwd: tmp.path },
  );
  assert.equal(step.code, 2);
  assert.match(step.stderr, /--unset data\.object\.nope/);
  assert.equal(server.requests.length, 3, "nothing sent by the refused runs");
});
