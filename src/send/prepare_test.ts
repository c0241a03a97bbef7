/**
 * Re-signed replays pass the providers' own verification at a real target
 * server on loopback: an old Stripe / Standard Webhooks / Svix event, a
 * GitHub event with a changed field, a Twilio event sent to another URL.
 */
import assert from "node:assert/strict";
import { sign as githubSign, verify as githubVerify } from "@octokit/webhooks-methods";
import { Webhook as StandardWebhook } from "standardwebhooks";
import Stripe from "stripe";
import { Webhook as SvixWebhook } from "svix";
import twilioLib from "twilio";
import { buildEvent, type CapturedEvent } from "../event/record.ts";
import type { ProviderSettings } from "../providers/types.ts";
import { type OutgoingRequest, prepareRequest, rejectionReason } from "./prepare.ts";
import { deliverOnce } from "./deliver.ts";

/** The engine's preparation with the CLI's option names. */
async function prepareReplay(
  event: CapturedEvent,
  url: URL,
  o: { method: string; settings?: ProviderSettings; resign?: boolean; set?: string[]; body?: Uint8Array },
): Promise<OutgoingRequest> {
  return await prepareRequest(event, url, {
    overrides: { method: o.method, ...(o.set ? { set: o.set } : {}), ...(o.body ? { body: o.body } : {}) },
    ...(o.resign ? { resign: true } : {}),
    ...(o.settings ? { settings: o.settings } : {}),
  });
}

/** Sends a stored event, or a prepared request, through the engine; resolves to the answer's status. */
async function replay(what: CapturedEvent | OutgoingRequest, url: string): Promise<{ status?: number }> {
  const isEvent = "id" in what;
  const event = isEvent ? what : stored("x", []);
  const { record } = await deliverOnce(event, { name: "t", to: url }, {
    id: "dlv_test",
    source: "replay",
    attempt: 1,
    keepAlive: false,
    ...(isEvent ? {} : { request: what }),
  });
  return record.status === undefined ? {} : { status: record.status };
}

const BODY = JSON.stringify({ id: "evt_1", type: "invoice.paid", data: { object: { amount: 1200 } } });
const HOUR_AGO = new Date(Date.now() - 3_600_000);

function stored(provider: string, headers: [string, string][], body = BODY, at = HOUR_AGO): CapturedEvent {
  const event = buildEvent({
    id: "evt_20260101_01J0000000000000000000TEST",
    endpoint: "hook",
    receivedAt: at,
    method: "POST",
    path: "/hook",
    query: "",
    headers,
    body: new TextEncoder().encode(body),
    remoteAddr: "127.0.0.1",
  });
  event.provider = provider;
  event.verdict = { status: "valid" };
  return event;
}

const settings = (secret: string): ProviderSettings => ({
  secrets: [secret],
  tolerance: 300,
  enforce: false,
});

/** A target that answers 200 when `check` accepts the request, else 400 with the reason. */
async function withTarget(
  check: (request: Request, body: string) => Promise<boolean> | boolean,
  run: (url: string) => Promise<void>,
): Promise<void> {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (request) => {
    const body = await request.text();
    let ok = false;
    try {
      ok = await check(request, body);
    } catch { /* the library refused it */ }
    return new Response(ok ? "verified" : "rejected", { status: ok ? 200 : 400 });
  });
  try {
    await run(`http://127.0.0.1:${server.addr.port}/hook`);
  } finally {
    await server.shutdown();
  }
}

Deno.test("an hour-old Stripe event is rejected by stripe at the target, and accepted once re-signed", async () => {
  const stripe = new Stripe("sk_test_hooktap");
  const secret = "whsec_replay_secret";
  const header = await stripe.webhooks.generateTestHeaderStringAsync({
    payload: BODY,
    secret,
    timestamp: Math.floor(HOUR_AGO.getTime() / 1000),
  });
  const event = stored("stripe", [["content-type", "application/json"], ["Stripe-Signature", header]]);
  await withTarget(
    (r, body) =>
      stripe.webhooks.constructEventAsync(body, r.headers.get("stripe-signature")!, secret).then(() => true),
    async (url) => {
      assert.equal((await replay(event, url)).status, 400);
      const plain = await prepareReplay(event, new URL(url), { method: "POST", settings: settings(secret) });
      assert.match(plain.warning!, /covers its timestamp \(about 60 min ago\).*older than 300 s/);
      const prepared = await prepareReplay(event, new URL(url), {
        method: "POST",
        resign: true,
        settings: settings(secret),
      });
      assert.equal(prepared.resigned, "stripe");
      assert.equal((await replay(prepared, url)).status, 200);
      // A changed field is re-signed too.
      const changed = await prepareReplay(event, new URL(url), {
        method: "POST",
        set: ["data.object.amount=5000"],
        settings: settings(secret),
      });
      assert.equal(JSON.parse(new TextDecoder().decode(changed.body!)).data.object.amount, 5000);
      assert.equal((await replay(changed, url)).status, 200);
    },
  );
});

for (
  const [name, Lib, prefix] of [["standardwebhooks", StandardWebhook, "webhook"], [
    "svix",
    SvixWebhook,
    "svix",
  ]] as const
) {
  Deno.test(`an hour-old ${name} event passes ${name} at the target once re-signed`, async () => {
    const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const lib = new Lib(secret);
    const ts = String(Math.floor(HOUR_AGO.getTime() / 1000));
    const event = stored("standard-webhooks", [
      [`${prefix}-id`, "msg_1"],
      [`${prefix}-timestamp`, ts],
      [`${prefix}-signature`, lib.sign("msg_1", HOUR_AGO, BODY)],
    ]);
    await withTarget((r, body) => {
      lib.verify(body, Object.fromEntries(r.headers));
      return true;
    }, async (url) => {
      assert.equal((await replay(event, url)).status, 400);
      const prepared = await prepareReplay(event, new URL(url), {
        method: "POST",
        resign: true,
        settings: settings(secret),
      });
      assert.equal((await replay(prepared, url)).status, 200);
    });
  });
}

Deno.test("a GitHub event with a changed field passes @octokit/webhooks-methods at the target", async () => {
  const secret = "gh-secret";
  const event = stored("github", [["X-GitHub-Event", "push"], [
    "X-Hub-Signature-256",
    await githubSign(secret, BODY),
  ]]);
  await withTarget(
    (r, body) => githubVerify(secret, body, r.headers.get("x-hub-signature-256") ?? ""),
    async (url) => {
      assert.equal((await replay(event, url)).status, 200); // body-only: the stored signature still verifies
      await assert.rejects(
        prepareReplay(event, new URL(url), { method: "POST", set: ['ref="dev"'] }),
        /--set ref: the body has no field "ref".*--set-new/,
      );
      const noSecret = await prepareReplay(event, new URL(url), { method: "POST", set: ['type="dev"'] });
      assert.match(noSecret.warning!, /signature covers the body, and the body was changed/);
      assert.equal((await replay(noSecret, url)).status, 400);
      const prepared = await prepareReplay(event, new URL(url), {
        method: "POST",
        set: ["data.object.amount=5000"],
        settings: settings(secret),
      });
      assert.equal(JSON.parse(new TextDecoder().decode(prepared.body!)).data.object.amount, 5000);
      assert.equal((await replay(prepared, url)).status, 200);
    },
  );
});

Deno.test("a Twilio event replayed to another URL is re-signed for that URL", async () => {
  const token = "twilio-token";
  const params = { Body: "hi", From: "+15550001111" };
  const body = new URLSearchParams(params).toString();
  const event = stored("twilio", [
    ["Content-Type", "application/x-www-form-urlencoded"],
    ["X-Twilio-Signature", twilioLib.getExpectedTwilioSignature(token, "https://abc.ngrok.app/hook", params)],
  ], body);
  await withTarget(
    (r, text) =>
      twilioLib.validateRequest(
        token,
        r.headers.get("x-twilio-signature") ?? "",
        r.url,
        Object.fromEntries(new URLSearchParams(text)),
      ),
    async (url) => {
      assert.equal((await replay(event, url)).status, 400);
      const prepared = await prepareReplay(event, new URL(url), {
        method: "POST",
        resign: true,
        settings: settings(token),
      });
      assert.equal((await replay(prepared, url)).status, 200);
    },
  );
});

Deno.test("--resign without a secret says exactly why the app will reject the replay", async () => {
  const event = stored("slack", [["X-Slack-Request-Timestamp", "1700000000"], [
    "X-Slack-Signature",
    "v0=00",
  ]]);
  await assert.rejects(
    () => prepareReplay(event, new URL("http://127.0.0.1:9/hook"), { method: "POST", resign: true }),
    /Cannot re-sign .*: the stored Slack signature covers its timestamp .* older than 300 s, so the app will reject the replay as expired.*add the signing secret to endpoint "hook".*secret: process\.env\.SLACK_WEBHOOK_SECRET\) and replay with --resign/,
  );
  assert.equal(rejectionReason(stored("github", [], BODY), false, undefined, new Date()), undefined);
});

Deno.test("--resign of an unchanged event hooktap cannot sign says the true cause: Discord's private key, or no timestamp to go stale", async () => {
  const url = new URL("http://127.0.0.1:9/hook");
  const discord = stored("discord", [["X-Signature-Ed25519", "00"], ["X-Signature-Timestamp", "1700000000"]]);
  const refused = (event: CapturedEvent, s?: ProviderSettings) =>
    prepareReplay(event, url, { method: "POST", resign: true, ...(s ? { settings: s } : {}) }).then(
      () => "",
      (e: Error) => e.message,
    );
  for (const s of [undefined, settings("whatever")]) {
    const message = await refused(discord, s);
    assert.match(message, /Discord signs with its private key, which only Discord holds/);
    assert.doesNotMatch(message, /no secret|tolerance/);
  }
  const meta = stored("meta", [["X-Hub-Signature-256", "sha256=00"]]);
  const metaMessage = await refused(meta);
  assert.match(
    metaMessage,
    /endpoint "hook" has no secret in the config \(a Meta signature has no timestamp/,
  );
  assert.doesNotMatch(metaMessage, /tolerance/);
});
