import assert from "node:assert/strict";
import { startReceiver } from "./receiver.ts";
import { trigger } from "./trigger.ts";

Deno.test("trigger() sends a signed Stripe event that startReceiver verifies, and returns request and answer", async () => {
  await using receiver = await startReceiver({
    endpoints: [{ name: "stripe", path: "/stripe", method: "POST", provider: "stripe", secret: "whsec_lib" }],
  });
  const result = await trigger("stripe", "invoice.paid", {
    to: receiver,
    secret: "whsec_lib",
    set: { "data.object.amount_paid": 5000 },
  });
  assert.equal(result.response?.status, 200);
  assert.match(result.request.headers.find(([k]) => k === "Stripe-Signature")![1], /^t=\d+,v1=[0-9a-f]{64}$/);
  const event = await receiver.waitFor({ type: "invoice.paid" });
  assert.equal(event.verdict?.status, "valid");
  assert.equal(JSON.parse(result.request.body).data.object.amount_paid, 5000);
});

Deno.test("trigger() signs Discord with a key pair made for the call and returns its public key", async () => {
  const first = await trigger("discord", "APPLICATION_COMMAND", {
    to: "http://127.0.0.1:9/unused",
    timeoutMs: 2000,
  });
  assert.match(first.publicKey!, /^[0-9a-f]{64}$/);
  assert.equal(first.deliveries[0]!.ok, false); // nothing listens on port 9
  await using receiver = await startReceiver({
    endpoints: [{ name: "d", path: "/d", method: "POST", provider: "discord", publicKey: "00".repeat(32) }],
  });
  const wrong = await trigger("discord", "APPLICATION_COMMAND", { to: receiver });
  assert.equal(wrong.response?.status, 200);
  assert.equal((await receiver.waitFor()).verdict?.status, "invalid"); // another key than the receiver trusts
});

Deno.test("trigger() with fault.duplicate sends the same delivery twice and a bad set path is refused unless setNew", async () => {
  await using receiver = await startReceiver({
    endpoints: [{ name: "gh", path: "/gh", method: "POST", provider: "github", secret: "s" }],
  });
  const result = await trigger("github", "push", { to: receiver, secret: "s", fault: { duplicate: true } });
  assert.equal(result.deliveries.length, 2);
  assert.deepEqual(result.deliveries[0]!.request, result.deliveries[1]!.request);
  assert.equal(receiver.events().length, 2);
  await assert.rejects(
    () => trigger("github", "push", { to: receiver, secret: "s", set: { "repository.nope": 1 } }),
    /has no field "repository\.nope".*`setNew: true`/,
  );
  const added = await trigger("github", "push", {
    to: receiver,
    secret: "s",
    set: { "repository.nope": 1, "repository.name": "renamed" },
    setNew: true,
  });
  const body = JSON.parse(added.request.body);
  assert.deepEqual([body.repository.nope, body.repository.name], [1, "renamed"]);
});
