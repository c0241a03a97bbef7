/** Each fault flag, observed at a raw server: what arrives on the wire, and nothing that marks it. */
import assert from "node:assert/strict";
import Stripe from "stripe";
import { trigger } from "../../src/trigger/run.ts";
import { loadCatalog } from "../../src/trigger/registry.ts";
import { startRawServer } from "./_raw.ts";

const SECRET = "whsec_faults";
const stripe = new Stripe("sk_test_hooktap");
const header = (r: { headers: [string, string][] }, name: string) =>
  r.headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
const accepts = (r: { headers: [string, string][]; body: Uint8Array }) =>
  stripe.webhooks.constructEventAsync(
    new TextDecoder().decode(r.body),
    header(r, "stripe-signature")!,
    SECRET,
  )
    .then(() => true, () => false);

Deno.test("the headers go out with the provider's names, case and order, and no marker header", async () => {
  await using server = startRawServer();
  await trigger({ provider: "github", event: "push", to: `${server.url}/gh`, secret: "s" });
  const names = server.requests[0]!.headers.map(([k]) => k);
  assert.deepEqual(names.slice(0, 6), [
    "Host",
    "Accept",
    "Content-Type",
    "User-Agent",
    "X-GitHub-Delivery",
    "X-GitHub-Event",
  ]);
  assert.ok(names.includes("X-Hub-Signature-256") && names.includes("X-Hub-Signature"));
  assert.ok(!names.some((n) => /hooktap|trigger|fault/i.test(n)), names.join(","));
  assert.match(header(server.requests[0]!, "user-agent")!, /^GitHub-Hookshot\/[0-9a-f]{7}$/);
});

Deno.test("--duplicate sends the same bytes and signature twice", async () => {
  await using server = startRawServer();
  const out = await trigger({
    provider: "stripe",
    event: "charge.succeeded",
    to: server.url,
    secret: SECRET,
    fault: { duplicate: true },
  });
  assert.equal(server.requests.length, 2);
  const [a, b] = server.requests as [typeof server.requests[0], typeof server.requests[0]];
  assert.deepEqual(a.body, b.body);
  assert.equal(header(a, "stripe-signature"), header(b, "stripe-signature"));
  assert.ok(await accepts(a) && await accepts(b));
  assert.deepEqual(out.deliveries.map((d) => [d.fault ?? null, d.ok]), [[null, true], ["duplicate", true]]);
});

Deno.test("--stale signs beyond the tolerance: Stripe's library refuses it, the signature is otherwise right", async () => {
  await using server = startRawServer((r) => (header(r, "stripe-signature")!.includes("t=") ? 400 : 200));
  const out = await trigger({
    provider: "stripe",
    event: "invoice.paid",
    to: server.url,
    secret: SECRET,
    fault: { stale: true },
  });
  const r = server.requests[0]!;
  const t = Number(header(r, "stripe-signature")!.match(/t=(\d+)/)![1]);
  assert.ok(Date.now() / 1000 - t > 300, "older than Stripe's 300 s tolerance");
  assert.equal(await accepts(r), false);
  const body = new TextDecoder().decode(r.body);
  await stripe.webhooks.constructEventAsync(body, header(r, "stripe-signature")!, SECRET, 100_000); // within a wide tolerance
  assert.equal(out.deliveries[0]!.ok, true, "refused, as meant");
  await assert.rejects(
    () => trigger({ provider: "github", event: "push", to: server.url, secret: "s", fault: { stale: true } }),
    /GitHub signs no timestamp/,
  );
});

Deno.test("--bad-signature is refused by the library; an app that accepts it makes the delivery fail", async () => {
  await using server = startRawServer();
  const out = await trigger({
    provider: "stripe",
    event: "invoice.paid",
    to: server.url,
    secret: SECRET,
    fault: { badSignature: true },
  });
  assert.equal(await accepts(server.requests[0]!), false);
  assert.equal(out.deliveries[0]!.ok, false, "the raw server answered 200 to a bad signature");
});

Deno.test("--out-of-order shuffles a sequence, the same way for the same seed", async () => {
  await using server = startRawServer();
  const order = async (seed: number) => {
    const out = await trigger({
      provider: "stripe",
      event: "checkout",
      to: server.url,
      secret: SECRET,
      fault: { outOfOrder: true, seed },
    });
    return out.deliveries.map((d) => d.event);
  };
  const a = await order(7);
  assert.deepEqual(await order(7), a);
  const inOrder = (await loadCatalog("stripe")).sequences.checkout!.steps.map((s) => s.event);
  assert.notDeepEqual(a, inOrder);
  assert.deepEqual([...a].sort(), [...inOrder].sort());
});

Deno.test("--retries resends at the provider's schedule (compressed), re-signed, with the retry headers", async () => {
  await using server = startRawServer(() => 500);
  const waits: number[] = [];
  const out = await trigger(
    { provider: "slack", event: "message", to: server.url, secret: "slack-secret", fault: { retries: 2 } },
    { sleep: (ms) => (waits.push(ms), Promise.resolve()) },
  );
  assert.equal(server.requests.length, 3);
  assert.deepEqual(waits, [Math.round(Math.log2(1 + 60 / 60) * 1000)]); // Slack: at once, then after 1 minute → 1 s
  assert.equal(header(server.requests[1]!, "x-slack-retry-num"), "1");
  assert.equal(header(server.requests[2]!, "x-slack-retry-num"), "2");
  assert.deepEqual(server.requests[0]!.body, server.requests[2]!.body);
  assert.deepEqual(out.deliveries.map((d) => d.attempt), [0, 1, 2]);
  assert.ok(out.deliveries.every((d) => !d.ok));
});

Deno.test("--retries --real-time waits the documented delay before each retry, none before the first attempt", async () => {
  await using server = startRawServer(() => 500);
  // The wait before retry #1, #2, #3 as each provider documents it (a 0 wait is not slept).
  const documented: [string, string, number[]][] = [
    // docs.svix.com/retries: immediately, then 5 s, 5 min, 30 min, ... after each failure.
    ["standard-webhooks", "invoice.paid", [5_000, 300_000, 1_800_000]],
    // developers.zoom.us/blog/webhook-delays: 5 min after the first, then 20 min, then 60 min.
    ["zoom", "meeting.started", [300_000, 1_200_000, 3_600_000]],
    // Slack's Events API: a nearly immediate retry, then after 1 minute and after 5 minutes.
    ["slack", "message", [60_000, 300_000]],
  ];
  for (const [provider, event, waits] of documented) {
    const slept: number[] = [];
    const at = server.requests.length;
    await trigger(
      {
        provider,
        event,
        to: server.url,
        secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
        fault: { retries: 3, realTime: true },
      },
      { sleep: (ms) => (slept.push(ms), Promise.resolve()) },
    );
    assert.equal(server.requests.length - at, 4, provider);
    assert.deepEqual(slept, waits, provider);
  }
});
