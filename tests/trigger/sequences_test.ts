/** Sequences keep their cross-references, ids are fresh on each trigger, and overrides change what is sent. */
import assert from "node:assert/strict";
import { makeTriggerKeys } from "../../src/trigger/keys.ts";
import { loadCatalog, TRIGGER_CATALOGS } from "../../src/trigger/registry.ts";
import { trigger } from "../../src/trigger/run.ts";
import { startApp } from "./_app.ts";
import { startRawServer } from "./_raw.ts";

const json = (d: { body: Uint8Array }) => JSON.parse(new TextDecoder().decode(d.body));

Deno.test("every sequence is sent in order and accepted by the provider's checks", async () => {
  const keys = await makeTriggerKeys();
  const { publicKeyFor } = await import("../../src/trigger/keys.ts");
  const publicKeys = Object.fromEntries(["discord", "sendgrid"].map((p) => [p, publicKeyFor(p, keys)!]));
  for (const provider of Object.keys(TRIGGER_CATALOGS)) {
    const catalog = await loadCatalog(provider);
    const secret = provider === "standard-webhooks" ? "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" : "seq-secret";
    await using app = startApp({ secret, publicKeys });
    for (const [name, sequence] of Object.entries(catalog.sequences)) {
      const keyed = provider === "discord" || provider === "sendgrid";
      const out = await trigger({
        provider,
        event: name,
        to: `${app.url}/${provider}`,
        ...(keyed ? { keys } : { secret }),
      });
      assert.deepEqual(
        out.deliveries.map((d) => d.event),
        sequence.steps.map((s) => s.event),
        `${provider} ${name}`,
      );
      assert.ok(
        out.deliveries.every((d) => d.ok),
        `${provider} ${name}: ${out.deliveries.map((d) => d.status)}`,
      );
    }
  }
});

Deno.test("Stripe's checkout refers to one customer, payment intent and charge; a second run has fresh ids", async () => {
  await using server = startRawServer();
  const run = async () =>
    (await trigger({ provider: "stripe", event: "checkout", to: server.url, secret: "whsec_x" })).deliveries
      .map(json);
  const find = (events: ReturnType<typeof json>[], type: string) => events.find((e) => e.type === type);
  const first = await run();
  const [customer, piCreated, piSucceeded, charge, session] = [
    "customer.created",
    "payment_intent.created",
    "payment_intent.succeeded",
    "charge.succeeded",
    "checkout.session.completed",
  ].map((t) => find(first, t));
  const pi = piCreated.data.object.id;
  assert.match(pi, /^pi_/);
  assert.equal(piSucceeded.data.object.id, pi);
  assert.equal(charge.data.object.payment_intent, pi);
  assert.equal(session.data.object.payment_intent, pi);
  assert.equal(session.data.object.customer, customer.data.object.id);
  assert.equal(charge.data.object.customer, customer.data.object.id);
  assert.equal(new Set([customer, piCreated, piSucceeded, charge, session].map((e) => e.id)).size, 5);
  const again = await run();
  assert.notEqual(find(again, "payment_intent.created").data.object.id, pi);
  assert.notEqual(find(again, "customer.created").data.object.id, customer.data.object.id);
});

Deno.test("GitHub's pull request flow is one pull request, opened, synchronized, then closed merged", async () => {
  await using server = startRawServer();
  const out = await trigger({ provider: "github", event: "pull_request", to: server.url, secret: "s" });
  const [opened, sync, closed] = out.deliveries.map(json);
  assert.deepEqual([opened.action, sync.action, closed.action], ["opened", "synchronize", "closed"]);
  assert.equal(sync.number, opened.number);
  assert.equal(closed.pull_request.id, opened.pull_request.id);
  assert.equal(closed.pull_request.merged, true);
  assert.equal(sync.before, opened.pull_request.head.sha, "synchronize moved the head from where it was");
  assert.equal(sync.after, sync.pull_request.head.sha);
  assert.equal(closed.pull_request.head.sha, sync.after, "the merged pull request's head is the pushed one");
  const ids = server.requests.map((r) => r.headers.find(([k]) => k === "X-GitHub-Delivery")![1]);
  assert.equal(new Set(ids).size, 3, "a delivery id each");
});

Deno.test("overrides: --set on JSON and form bodies, --set-new, --body-file and -H", async () => {
  await using server = startRawServer();
  const base = { to: server.url, secret: "tok" };
  await trigger({
    ...base,
    provider: "twilio",
    event: "delivered",
    set: ["MessageStatus=failed", "ErrorCode=30008"],
    setNew: true,
  });
  const form = new URLSearchParams(new TextDecoder().decode(server.requests[0]!.body));
  assert.equal(form.get("MessageStatus"), "failed");
  assert.equal(form.get("ErrorCode"), "30008");
  await assert.rejects(
    () => trigger({ ...base, provider: "twilio", event: "delivered", set: ["Nope=1"] }),
    /form body has no field "Nope" \(fields: .*MessageStatus.*\).*--set-new/,
  );
  await trigger({
    ...base,
    provider: "stripe",
    event: "invoice.paid",
    set: ["data.object.amount_paid=5000", "livemode=true"],
  });
  const body = json(server.requests[1]!);
  assert.equal(body.data.object.amount_paid, 5000);
  assert.equal(body.livemode, true);
  await assert.rejects(
    () => trigger({ ...base, provider: "stripe", event: "invoice.paid", set: ["data.object.nope.deep=1"] }),
    /no field "data\.object\.nope" \(data\.object has .*amount_paid.*\).*--set-new/,
  );
  await trigger({
    ...base,
    provider: "stripe",
    event: "invoice.paid",
    set: ["data.object.metadata.order=42"],
    setNew: true,
  });
  assert.equal(json(server.requests[2]!).data.object.metadata.order, 42);
  await trigger({
    ...base,
    provider: "github",
    event: "push",
    body: new TextEncoder().encode('{"custom":true}'),
    headers: [["X-Extra", "1"], ["User-Agent", ""]],
  });
  const r = server.requests[3]!;
  assert.equal(new TextDecoder().decode(r.body), '{"custom":true}');
  assert.ok(r.headers.some(([k, v]) => k === "X-Extra" && v === "1"));
  assert.ok(!r.headers.some(([k]) => k === "User-Agent"));
  const { verify } = await import("@octokit/webhooks-methods");
  assert.equal(
    await verify("tok", '{"custom":true}', r.headers.find(([k]) => k === "X-Hub-Signature-256")![1]),
    true,
  );
});

Deno.test("Twilio signs the URL it is sent to, or --signature-url", async () => {
  await using server = startRawServer();
  const twilio = (await import("twilio")).default;
  await trigger({ provider: "twilio", event: "sent", to: `${server.url}/sms?x=1`, secret: "tok" });
  await trigger({
    provider: "twilio",
    event: "sent",
    to: `${server.url}/sms`,
    secret: "tok",
    signatureUrl: "https://abc.ngrok.app/sms",
  });
  const check = (i: number, url: string) => {
    const r = server.requests[i]!;
    const params = Object.fromEntries(new URLSearchParams(new TextDecoder().decode(r.body)));
    return twilio.validateRequest(
      "tok",
      r.headers.find(([k]) => k === "X-Twilio-Signature")![1],
      url,
      params,
    );
  };
  assert.equal(check(0, `${server.url}/sms?x=1`), true);
  assert.equal(check(1, "https://abc.ngrok.app/sms"), true);
  assert.equal(check(1, `${server.url}/sms`), false);
});
