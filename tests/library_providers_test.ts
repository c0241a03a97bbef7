/**
 * The library with providers: signature verdicts on received events,
 * custom answers, and a Stripe fixture re-signed for the app under test,
 * checked with the providers' official libraries. Verdicts, custom
 * responses and re-signing come from src/providers/ (the providers issue);
 * these tests are skipped, and say so, in a build without it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { sign } from "@octokit/webhooks-methods";
import Stripe from "stripe";
import type { EndpointConfig } from "../mod.ts";
import {
  loadEvents,
  MASKED_SIGNATURE,
  replayEvent,
  startReceiver,
  writeFixture,
} from "../src/testing/mod.ts";
import { withTmpDir } from "./_helpers.ts";

/** Whether this build has the providers (verdicts, custom responses, re-signing). */
const PROVIDERS_AVAILABLE = await Deno.stat(new URL("../src/providers/examine.ts", import.meta.url)).then(
  (s) => s.isFile,
  () => false,
);

function test(name: string, fn: () => Promise<void>): void {
  Deno.test({ name, fn, ignore: !PROVIDERS_AVAILABLE, sanitizeOps: true, sanitizeResources: true });
}

/** An endpoint with the providers' fields (typed loosely so this file checks before they land). */
function endpoint(fields: Record<string, unknown>): EndpointConfig {
  return fields as unknown as EndpointConfig;
}

const GITHUB_SECRET = "It's a Secret to Everybody";

/** The app under test: sends a GitHub-style webhook signed with its secret. */
async function appSendsPush(url: string, secret: string, tamper = false): Promise<void> {
  const payload = JSON.stringify({ ref: "refs/heads/main", after: "0123abc" });
  const signature = await sign(secret, payload);
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-github-event": "push",
      "x-github-delivery": crypto.randomUUID(),
      "x-hub-signature-256": signature,
    },
    body: tamper ? payload.replace("main", "evil") : payload,
  });
  await response.body?.cancel();
}

test("a GitHub delivery signed with the configured secret arrives with verdict valid", async () => {
  await using rx = await startReceiver({
    endpoints: [
      endpoint({
        name: "github",
        path: "/github",
        method: "POST",
        provider: "github",
        secret: GITHUB_SECRET,
      }),
    ],
  });
  await appSendsPush(rx.urlOf("github"), GITHUB_SECRET);
  const event = await rx.waitFor({ endpoint: "github" }, { timeout: 2000 });
  assert.equal(event.provider, "github");
  assert.equal(event.type, "push");
  assert.equal(event.verdict?.status, "valid", JSON.stringify(event.verdict));
});

test("a GitHub delivery whose body was changed after signing arrives with verdict invalid", async () => {
  await using rx = await startReceiver({
    endpoints: [
      endpoint({
        name: "github",
        path: "/github",
        method: "POST",
        provider: "github",
        secret: GITHUB_SECRET,
      }),
    ],
  });
  await appSendsPush(rx.urlOf("github"), GITHUB_SECRET, true);
  const event = await rx.waitFor({ endpoint: "github" }, { timeout: 2000 });
  assert.equal(event.verdict?.status, "invalid", JSON.stringify(event.verdict));
  assert.ok(event.verdict?.reason, "an invalid verdict says why");
});

test("an endpoint with a custom 500 answer: the app sees the 500, the event is still recorded", async () => {
  await using rx = await startReceiver({
    endpoints: [
      endpoint({
        name: "flaky",
        path: "/flaky",
        method: "POST",
        response: { status: 500, headers: { "content-type": "text/plain" }, body: "boom" },
      }),
    ],
  });
  const response = await fetch(rx.urlOf("flaky"), { method: "POST", body: "{}" });
  assert.equal(response.status, 500);
  assert.equal(await response.text(), "boom");
  const event = await rx.waitFor({ endpoint: "flaky" }, { timeout: 2000 });
  assert.equal(event.response?.status, 500);
  assert.equal(event.response?.source, "custom");
});

test("a recorded Stripe fixture, replayed re-signed after its timestamp expired, passes stripe's constructEvent(Async)", async () => {
  const stripe = new Stripe("sk_test_unused");
  const crypto = Stripe.createSubtleCryptoProvider(); // Web Crypto: Deno is not Node to stripe
  const recordedSecret = "whsec_secret_of_the_day_it_was_recorded";
  const testSecret = "whsec_secret_of_this_test";
  const payload = JSON.stringify({
    id: "evt_1",
    object: "event",
    type: "invoice.paid",
    data: { object: {} },
  });
  const hourAgo = Math.floor(Date.now() / 1000) - 3600;
  const header = await stripe.webhooks.generateTestHeaderStringAsync({
    payload,
    secret: recordedSecret,
    timestamp: hourAgo,
    cryptoProvider: crypto,
  });
  // The recording as it was: Stripe itself no longer accepts its signature.
  await assert.rejects(
    stripe.webhooks.constructEventAsync(payload, header, recordedSecret, undefined, crypto),
    /Timestamp outside the tolerance zone/,
  );

  await using tmp = await withTmpDir();
  const fixture = join(tmp.path, "stripe_invoice_paid.jsonl");
  {
    await using rx = await startReceiver({
      endpoints: [{ name: "stripe", path: "/stripe", method: "POST" }],
    });
    const sent = await fetch(rx.urlOf("stripe"), {
      method: "POST",
      headers: { "content-type": "application/json", "stripe-signature": header },
      body: payload,
    });
    await sent.body?.cancel();
    await writeFixture([await rx.waitFor({ endpoint: "stripe" })], fixture);
  }
  const [event] = await loadEvents(fixture);
  assert.ok(event);
  assert.equal(event.header("stripe-signature"), MASKED_SIGNATURE);

  // The app under test: verifies with the official library and its own secret.
  await using app = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const body = await request.text();
    try {
      const verified = await stripe.webhooks.constructEventAsync(
        body,
        request.headers.get("stripe-signature") ?? "",
        testSecret,
        undefined,
        crypto,
      );
      return Response.json({ received: verified.type });
    } catch (error) {
      return new Response((error as Error).message, { status: 400 });
    }
  });
  const to = `http://127.0.0.1:${app.addr.port}/webhooks/stripe`;
  const unsigned = await replayEvent(event, { to });
  assert.equal(unsigned.status, 400, "the masked signature must not verify");
  const response = await replayEvent(event, { to, resign: { secret: testSecret } });
  assert.equal(response.status, 200, response.text());
  assert.deepEqual(response.json(), { received: "invoice.paid" });
});
