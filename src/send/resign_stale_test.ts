import assert from "node:assert/strict";
import Stripe from "stripe";
import { validateConfig } from "../config/validate.ts";
import { buildEvent } from "../event/record.ts";
import { resignWhenStale } from "./resign_stale.ts";
import type { ForwardTarget } from "./target.ts";

const SECRET = "whsec_hooktap_forward";
const BODY = '{"id":"evt_1","type":"invoice.paid","object":"event"}';
const TARGET = { to: "http://127.0.0.1:3000/stripe", mode: "queue" } as ForwardTarget;

Deno.test("a forward retry after Stripe's tolerance is re-signed so stripe's own check accepts it", async () => {
  const stripe = new Stripe("sk_test_hooktap");
  const crypto = Stripe.createSubtleCryptoProvider();
  const signedAt = new Date(Date.now() - 20 * 60_000); // 20 minutes ago: outside the 5-minute tolerance
  const header = await stripe.webhooks.generateTestHeaderStringAsync({
    payload: BODY,
    secret: SECRET,
    timestamp: Math.floor(signedAt.getTime() / 1000),
  });
  const event = buildEvent({
    id: "evt_20261123_01M84MGVTY6EJH6QQKCXTC8132",
    endpoint: "stripe",
    receivedAt: signedAt,
    method: "POST",
    path: "/stripe",
    query: "",
    headers: [["Content-Type", "application/json"], ["Stripe-Signature", header]],
    body: new TextEncoder().encode(BODY),
    remoteAddr: "127.0.0.1",
  });
  event.provider = "stripe";
  const verify = (signature: string) =>
    stripe.webhooks.constructEventAsync(BODY, signature, SECRET, undefined, crypto).then(
      () => "ok",
      (e) => e.message,
    );
  assert.match(await verify(header), /tolerance/i, "the stored signature has expired");

  const { endpoints } = validateConfig({
    port: 0,
    endpoints: [{ name: "stripe", path: "/stripe", method: "POST", provider: "stripe", secret: SECRET }],
  }, null);
  const prepared = await resignWhenStale(() => endpoints)(event, 2, TARGET);
  assert.ok(prepared?.resigned);
  const fresh = prepared.headers.find(([n]) => n.toLowerCase() === "stripe-signature")?.[1];
  assert.ok(fresh !== undefined && fresh !== header);
  assert.equal(await verify(fresh), "ok");
  assert.deepEqual(prepared.body, new TextEncoder().encode(BODY));

  // A recent event, and an endpoint without a secret, are sent as stored.
  const recent = { ...event, receivedAt: new Date().toISOString() };
  assert.equal(await resignWhenStale(() => endpoints)(recent, 2, TARGET), undefined);
  const plain = validateConfig(
    { port: 0, endpoints: [{ name: "stripe", path: "/stripe", method: "POST" }] },
    null,
  );
  assert.equal(await resignWhenStale(() => plain.endpoints)(event, 2, TARGET), undefined);

  // A signature that was invalid at receipt is never made valid on the way to the app.
  const invalid = { ...event, verdict: { status: "invalid" as const, reason: "no secret matched" } };
  assert.equal(await resignWhenStale(() => endpoints)(invalid, 2, TARGET), undefined);
  // Nor one whose signature had expired when it arrived (the sender's timestamp was already too old).
  const expired = { ...event, verdict: { status: "expired" as const, reason: "older than the tolerance" } };
  assert.equal(await resignWhenStale(() => endpoints)(expired, 2, TARGET), undefined);
  // Nor one that came unsigned (anyone's POST), or unchecked (no secret then): hooktap signs nothing a sender
  // did not.
  const unsigned = {
    ...event,
    verdict: { status: "unsigned" as const, reason: "no stripe-signature header" },
  };
  assert.equal(await resignWhenStale(() => endpoints)(unsigned, 2, TARGET), undefined);
  const unchecked = { ...event, verdict: { status: "no-secret" as const, reason: "no secret configured" } };
  assert.equal(await resignWhenStale(() => endpoints)(unchecked, 2, TARGET), undefined);
});

Deno.test("with a tolerance shorter than twice the margin, a delivery made at once keeps the sender's signature", async () => {
  const { endpoints } = validateConfig({
    port: 0,
    endpoints: [{
      name: "stripe",
      path: "/stripe",
      method: "POST",
      provider: "stripe",
      secret: SECRET,
      tolerance: 10,
    }],
  }, null);
  const event = buildEvent({
    id: "evt_20261123_01M84MGVTY6EJH6QQKCXTC8133",
    endpoint: "stripe",
    receivedAt: new Date(Date.now() - 1000),
    method: "POST",
    path: "/stripe",
    query: "",
    headers: [["Content-Type", "application/json"], ["Stripe-Signature", "t=1,v1=00"]],
    body: new TextEncoder().encode(BODY),
    remoteAddr: "127.0.0.1",
  });
  event.provider = "stripe";
  assert.equal(await resignWhenStale(() => endpoints)(event, 1, TARGET), undefined, "1 s old: as sent");
  const old = { ...event, receivedAt: new Date(Date.now() - 6000).toISOString() };
  assert.ok((await resignWhenStale(() => endpoints)(old, 2, TARGET))?.resigned, "6 s old: re-signed");
});
