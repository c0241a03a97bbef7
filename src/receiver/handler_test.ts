import assert from "node:assert/strict";
import Stripe from "stripe";
import { validateConfig } from "../config/validate.ts";
import type { CapturedEvent } from "../event/record.ts";
import type { ForwardTarget } from "../ports.ts";
import { createHandler, type EventSink, type RequestOutcome } from "./handler.ts";

const config = validateConfig(
  { port: 0, endpoints: [{ name: "default", path: "/webhook", method: "POST" }] },
  null,
);
const NOW = new Date("2026-03-04T05:06:07.089Z");

function setup(options: { sink?: EventSink; maxBodySize?: number } = {}) {
  const events: CapturedEvent[] = [];
  const outcomes: RequestOutcome[] = [];
  const handler = createHandler({
    endpoints: options.maxBodySize === undefined
      ? config.endpoints
      : config.endpoints.map((e) => ({ ...e, maxBodySize: options.maxBodySize! })),
    sink: options.sink ?? { append: (e) => Promise.resolve(void events.push(e)) },
    now: () => NOW,
    newId: () => "evt_20260304_01J0000000000000000000TEST",
    onOutcome: (o) => outcomes.push(o),
  });
  const remote = { remoteAddr: { transport: "tcp" as const, hostname: "127.0.0.9", port: 5555 } };
  return { handler, events, outcomes, remote };
}

Deno.test("handler stores a matched request and answers 200 with the event id", async () => {
  const { handler, events, outcomes, remote } = setup();
  const response = await handler(
    new Request("http://localhost/webhook?a=1&b=%20", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"ok":true}',
    }),
    remote,
  );
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("x-hooktap-event-id"), "evt_20260304_01J0000000000000000000TEST");
  assert.deepEqual(await response.json(), { ok: true, id: "evt_20260304_01J0000000000000000000TEST" });
  assert.equal(events.length, 1);
  const e = events[0]!;
  assert.deepEqual(
    { ...e, headers: undefined },
    {
      v: 1,
      id: "evt_20260304_01J0000000000000000000TEST",
      endpoint: "default",
      receivedAt: "2026-03-04T05:06:07.089Z",
      method: "POST",
      path: "/webhook",
      query: "a=1&b=%20",
      headers: undefined,
      body: '{"ok":true}',
      bodyEncoding: "utf8",
      bodySize: 11,
      remoteAddr: "127.0.0.9",
    },
  );
  assert.ok(e.headers.some(([k, v]) => k.toLowerCase() === "content-type" && v === "application/json"));
  assert.equal(outcomes[0]?.status, 200);
});

Deno.test("handler answers 404 with the spec's message when no endpoint has the path", async () => {
  const { handler, events } = setup();
  const response = await handler(new Request("http://localhost/", { method: "POST", body: "x" }));
  assert.equal(response.status, 404);
  assert.equal(await response.text(), "No webhook endpoint matched this request.");
  assert.equal(events.length, 0);
});

Deno.test("handler answers 405 with an Allow header when only the method differs", async () => {
  const { handler, events } = setup();
  const response = await handler(new Request("http://localhost/webhook"));
  assert.equal(response.status, 405);
  assert.equal(response.headers.get("allow"), "POST");
  assert.equal(await response.text(), "Method not allowed.");
  assert.equal(events.length, 0);
});

Deno.test("handler resolves dot segments before matching", async () => {
  const { handler, events } = setup();
  const response = await handler(new Request("http://localhost/a/../webhook", { method: "POST", body: "" }));
  assert.equal(response.status, 200);
  assert.equal(events[0]?.path, "/webhook");
});

Deno.test("handler answers 413 and stores nothing when a chunked body passes maxBodySize", async () => {
  const { handler, events } = setup({ maxBodySize: 10 });
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(new Uint8Array(6));
      c.enqueue(new Uint8Array(6));
      c.close();
    },
  });
  const response = await handler(new Request("http://localhost/webhook", { method: "POST", body }));
  assert.equal(response.status, 413);
  assert.match(await response.text(), /at most 10 bytes.*maxBodySize/);
  assert.equal(events.length, 0);
});

Deno.test("handler keeps a chunked body of several chunks byte for byte", async () => {
  const { handler, events } = setup();
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(new Uint8Array([0xff, 1]));
      c.enqueue(new Uint8Array([2, 0xfe]));
      c.close();
    },
  });
  const response = await handler(new Request("http://localhost/webhook", { method: "POST", body }));
  assert.equal(response.status, 200);
  assert.deepEqual({ body: events[0]?.body, enc: events[0]?.bodyEncoding, size: events[0]?.bodySize }, {
    body: "/wEC/g==",
    enc: "base64",
    size: 4,
  });
});

Deno.test("handler answers 503, never 200, when the store cannot save the event", async () => {
  const { handler, outcomes } = setup({
    sink: { append: () => Promise.reject(new Error("the disk is full")) },
  });
  const response = await handler(new Request("http://localhost/webhook", { method: "POST", body: "x" }));
  assert.equal(response.status, 503);
  assert.match(await response.text(), /could not save this event: the disk is full\. Nothing was stored/);
  assert.equal(outcomes[0]?.reason, "the disk is full");
});

Deno.test("handler stores a pattern's parameters and keeps the path's own encoding", async () => {
  const events: CapturedEvent[] = [];
  const { endpoints } = validateConfig(
    { port: 0, endpoints: [{ name: "any", path: "/hooks/:provider", method: "POST" }] },
    null,
  );
  const handler = createHandler({ endpoints, sink: { append: (e) => Promise.resolve(void events.push(e)) } });
  const response = await handler(
    new Request("http://localhost/hooks/caf%c3%a9", { method: "POST", body: "x" }),
  );
  assert.equal(response.status, 200);
  assert.equal(events[0]?.path, "/hooks/caf%c3%a9");
  assert.deepEqual(events[0]?.params, { provider: "café" });
  const miss = await handler(new Request("http://localhost/hooks/a/b", { method: "POST", body: "x" }));
  assert.equal(miss.status, 404);
});

Deno.test("an event fetched from a hub has its signature's timestamp judged against its arrival at the hub", async () => {
  // Signed by Stripe's own library 9 s before dev fetched it; it reached the hub at once (the sender's
  // view), so with a 5 s tolerance it is fresh. Judged at the fetch it would be expired.
  const secret = "whsec_test123";
  const stripe = new Stripe("sk_test_unused");
  const payload = '{"id":"evt_1","type":"payment_intent.succeeded"}';
  const signedAt = Math.floor(NOW.getTime() / 1000) - 9;
  const header = await stripe.webhooks.generateTestHeaderStringAsync({
    payload,
    secret,
    timestamp: signedAt,
  });
  const stripeConfig = validateConfig({
    port: 0,
    endpoints: [{
      name: "stripe",
      path: "/stripe",
      method: "POST",
      provider: "stripe",
      secret,
      tolerance: 5,
    }],
  }, null);
  const verdicts: (string | undefined)[] = [];
  const handler = createHandler({
    endpoints: stripeConfig.endpoints,
    sink: { append: (e) => Promise.resolve(void verdicts.push(e.verdict?.status)) },
    now: () => NOW,
    newId: () => "evt_20260304_01J0000000000000000000TEST",
  });
  const request = () =>
    new Request("http://localhost/stripe", {
      method: "POST",
      headers: { "content-type": "application/json", "stripe-signature": header },
      body: payload,
    });
  const remote = { transport: "tcp" as const, hostname: "127.0.0.1", port: 0 };
  const hub = (receivedAt: string) => ({ channel: "c", seq: 7, receivedAt });
  await handler(request(), { remoteAddr: remote, hub: hub(new Date((signedAt + 1) * 1000).toISOString()) });
  await handler(request(), { remoteAddr: remote }); // received directly, 9 s late
  // A hub time that is no time, or later than dev's own clock, is not trusted over dev's clock.
  await handler(request(), { remoteAddr: remote, hub: hub("not a time") });
  await handler(request(), { remoteAddr: remote, hub: hub(new Date(NOW.getTime() + 60_000).toISOString()) });
  assert.deepEqual(verdicts, ["valid", "expired", "expired", "expired"]);
});

Deno.test("handler: a stored event no forward rule took says so in its outcome; one a rule took or not stored does not", async () => {
  const target = { name: "app", to: "http://127.0.0.1:9/hook", mode: "queue" as const } as ForwardTarget;
  let takes = false;
  let fails = false;
  const outcomes: RequestOutcome[] = [];
  const handler = createHandler({
    endpoints: config.endpoints,
    sink: { append: () => fails ? Promise.reject(new Error("disk full")) : Promise.resolve() },
    now: () => NOW,
    onOutcome: (o) => outcomes.push(o),
    forward: {
      targetsOf: () => [target],
      route: () => (takes ? [target] : []),
      forwarder: { enqueue: () => true, relay: () => Promise.resolve(new Response(null)) },
    },
  });
  const post = () => handler(new Request("http://localhost/webhook", { method: "POST", body: "{}" }));
  await post();
  takes = true;
  await post();
  [takes, fails] = [false, true];
  assert.equal((await post()).status, 503);
  assert.deepEqual(outcomes[0]!.unrouted, { receivedAt: NOW.toISOString() });
  assert.equal(outcomes[1]!.unrouted, undefined, "a rule took it");
  assert.equal(outcomes[2]!.unrouted, undefined, "not stored: no 'not forwarded' either");
});
