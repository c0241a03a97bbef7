/**
 * The receiver answers each provider's URL challenge with the exact
 * request the provider documents, through the handler in-process; enforce
 * and custom responses are answered and recorded.
 */
import assert from "node:assert/strict";
import { ConfigError } from "../errors.ts";
import { createHmac } from "node:crypto";
import { validateConfig } from "../config/validate.ts";
import type { CapturedEvent } from "../event/record.ts";
import { createHandler } from "./handler.ts";
import { mayAnswer, planAnswer } from "./answer.ts";
import type { Examination } from "../providers/examine.ts";

function setup(endpoint: Record<string, unknown>) {
  const events: CapturedEvent[] = [];
  const { endpoints } = validateConfig(
    { port: 0, endpoints: [{ name: "hook", path: "/hook", method: ["POST", "GET"], ...endpoint }] },
    null,
  );
  const handler = createHandler({ endpoints, sink: { append: (e) => Promise.resolve(void events.push(e)) } });
  return { handler, events };
}

async function hmacOf(
  alg: "SHA-256",
  key: string,
  data: string,
  encoding: "hex" | "base64",
): Promise<string> {
  const k = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(key),
    { name: "HMAC", hash: alg },
    false,
    [
      "sign",
    ],
  );
  const sig = new Uint8Array(await crypto.subtle.sign("HMAC", k, new TextEncoder().encode(data)));
  return encoding === "hex"
    ? Array.from(sig, (b) => b.toString(16).padStart(2, "0")).join("")
    : btoa(String.fromCharCode(...sig));
}

Deno.test("Slack url_verification is answered with its challenge and stored as a challenge", async () => {
  const { handler, events } = setup({ provider: "slack" });
  const body = JSON.stringify({
    token: "Jhj5dZrVaK7ZwHHjRyZWjbDl",
    challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P",
    type: "url_verification",
  });
  const r = await handler(
    new Request("http://localhost/hook", {
      method: "POST",
      body,
      headers: { "content-type": "application/json" },
    }),
  );
  assert.equal(r.status, 200);
  assert.deepEqual(await r.json(), { challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" });
  assert.equal(events[0]!.response?.source, "challenge");
  assert.equal(events[0]!.type, "url_verification");
});

Deno.test("Meta hub.mode=subscribe echoes hub.challenge only when verifyToken matches", async () => {
  const { handler, events } = setup({ verifyToken: "meatyhamhock" });
  const ok = await handler(
    new Request(
      "http://localhost/hook?hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=meatyhamhock",
    ),
  );
  assert.equal(ok.status, 200);
  assert.equal(await ok.text(), "1158201444");
  const bad = await handler(
    new Request("http://localhost/hook?hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=wrong"),
  );
  assert.equal(bad.status, 403);
  assert.doesNotMatch(await bad.text(), /1158201444/);
  assert.deepEqual(events.map((e) => [e.provider, e.response?.status, e.response?.source]), [
    ["meta", 200, "challenge"],
    ["meta", 403, "challenge"],
  ]);
});

Deno.test("Microsoft Graph validationToken is answered as decoded text/plain", async () => {
  const { handler } = setup({});
  const token = "Validation: Testing client application reachability for subscription Request-Id: 25c7fd0f";
  const r = await handler(
    new Request(`http://localhost/hook?validationToken=${encodeURIComponent(token)}`, { method: "POST" }),
  );
  assert.equal(r.status, 200);
  assert.match(r.headers.get("content-type")!, /^text\/plain/);
  assert.equal(await r.text(), token);
});

Deno.test("Zoom endpoint.url_validation gets plainToken and its HMAC-SHA256 encryptedToken", async () => {
  const { handler } = setup({ provider: "zoom", secret: "zoom-secret-token" });
  const body =
    '{"payload":{"plainToken":"qgg8vlvZRS6UYooatFL8Aw"},"event_ts":1654503849680,"event":"endpoint.url_validation"}';
  const r = await handler(new Request("http://localhost/hook", { method: "POST", body }));
  assert.equal(r.status, 200);
  assert.deepEqual(await r.json(), {
    plainToken: "qgg8vlvZRS6UYooatFL8Aw",
    encryptedToken: await hmacOf("SHA-256", "zoom-secret-token", "qgg8vlvZRS6UYooatFL8Aw", "hex"),
  });
});

Deno.test("X CRC is answered with sha256= and the base64 HMAC of crc_token", async () => {
  const { handler } = setup({ provider: "x", secret: "consumer-secret" });
  const r = await handler(new Request("http://localhost/hook?crc_token=challenge-abc&nonce=xyz"));
  assert.equal(r.status, 200);
  assert.deepEqual(await r.json(), {
    response_token: "sha256=" + await hmacOf("SHA-256", "consumer-secret", "challenge-abc", "base64"),
  });
});

Deno.test("Dropbox challenge is echoed as text/plain with nosniff", async () => {
  const { handler, events } = setup({});
  const r = await handler(new Request("http://localhost/hook?challenge=abc123xyz"));
  assert.equal(r.status, 200);
  assert.equal(r.headers.get("content-type"), "text/plain");
  assert.equal(r.headers.get("x-content-type-options"), "nosniff");
  assert.equal(await r.text(), "abc123xyz");
  assert.equal(events[0]!.provider, "dropbox");
});

Deno.test("Twitch webhook_callback_verification returns the challenge once the signature verifies", async () => {
  const secret = "twitch-secret-123";
  const { handler } = setup({ secret });
  const body = JSON.stringify({
    challenge: "pogchamp-kappa-360noscope-vohiyo",
    subscription: { id: "f1c2a387", status: "webhook_callback_verification_pending", type: "channel.follow" },
  });
  const id = "e76c6bd4-55c9-4987-8304-da1588d8988b";
  const ts = new Date().toISOString();
  const send = async (sig: string) =>
    await handler(
      new Request("http://localhost/hook", {
        method: "POST",
        body,
        headers: {
          "Twitch-Eventsub-Message-Id": id,
          "Twitch-Eventsub-Message-Timestamp": ts,
          "Twitch-Eventsub-Message-Type": "webhook_callback_verification",
          "Twitch-Eventsub-Message-Signature": sig,
        },
      }),
    );
  const good = await send("sha256=" + await hmacOf("SHA-256", secret, id + ts + body, "hex"));
  assert.equal(good.status, 200);
  assert.equal(good.headers.get("content-type"), "text/plain");
  assert.equal(await good.text(), "pogchamp-kappa-360noscope-vohiyo");
  const bad = await send("sha256=" + "0".repeat(64));
  assert.equal(bad.status, 403);
});

Deno.test("Discord PING gets {type:1} only with a valid Ed25519 signature, else 401", async () => {
  const pair = await crypto.subtle.generateKey("Ed25519", true, ["sign", "verify"]) as CryptoKeyPair;
  const hex = (b: ArrayBuffer) =>
    Array.from(new Uint8Array(b), (x) => x.toString(16).padStart(2, "0")).join("");
  const { handler, events } = setup({ publicKey: hex(await crypto.subtle.exportKey("raw", pair.publicKey)) });
  const body = '{"type":1}';
  const ts = String(Math.floor(Date.now() / 1000));
  const sig = hex(await crypto.subtle.sign("Ed25519", pair.privateKey, new TextEncoder().encode(ts + body)));
  const send = (s: string) =>
    handler(
      new Request("http://localhost/hook", {
        method: "POST",
        body,
        headers: { "X-Signature-Ed25519": s, "X-Signature-Timestamp": ts },
      }),
    );
  const ok = await send(sig);
  assert.equal(ok.status, 200);
  assert.deepEqual(await ok.json(), { type: 1 });
  const bad = await send(sig.replace(/^./, sig[0] === "a" ? "b" : "a"));
  assert.equal(bad.status, 401);
  assert.deepEqual(events.map((e) => [e.verdict?.status, e.response?.status]), [["valid", 200], [
    "invalid",
    401,
  ]]);
});

Deno.test("enforce answers 401 to a bad signature, still stores the event, marked", async () => {
  const { handler, events } = setup({ secret: "s3cret", enforce: true });
  const body = '{"zen":"ok"}';
  const good = "sha256=" + createHmac("sha256", "s3cret").update(body).digest("hex");
  const send = (sig?: string) =>
    handler(
      new Request("http://localhost/hook", {
        method: "POST",
        body,
        headers: { "X-GitHub-Event": "ping", ...(sig ? { "X-Hub-Signature-256": sig } : {}) },
      }),
    );
  assert.equal((await send(good)).status, 200);
  const bad = await send("sha256=" + "0".repeat(64));
  assert.equal(bad.status, 401);
  assert.match(await bad.text(), /Signature invalid: the secret is wrong/);
  assert.equal((await send()).status, 401);
  assert.deepEqual(events.map((e) => [e.verdict?.status, e.response?.source ?? null]), [
    ["valid", null],
    ["invalid", "enforce"],
    ["unsigned", "enforce"],
  ]);
});

Deno.test("a response function fails the first two deliveries, then succeeds; answers are recorded", async () => {
  let n = 0;
  const { handler, events } = setup({
    response: (event: CapturedEvent) =>
      Promise.resolve(
        ++n <= 2 ? { status: 503, body: { retry: n, id: event.id } } : { status: 202, delayMs: 5 },
      ),
  });
  const statuses = [];
  for (let i = 0; i < 3; i++) {
    statuses.push(
      (await handler(new Request("http://localhost/hook", { method: "POST", body: "{}" }))).status,
    );
  }
  assert.deepEqual(statuses, [503, 503, 202]);
  assert.deepEqual(events.map((e) => e.response?.status), [503, 503, 202]);
  assert.equal(events[0]!.response?.body, JSON.stringify({ retry: 1, id: events[0]!.id }));
  assert.equal(events[2]!.response?.delayMs, 5);
});

Deno.test("a throwing response function is answered 500 with the reason, and recorded", async () => {
  const { handler, events } = setup({
    response: () => {
      throw new Error("boom");
    },
  });
  const r = await handler(new Request("http://localhost/hook", { method: "POST", body: "{}" }));
  assert.equal(r.status, 500);
  assert.match(await r.text(), /response function threw: boom/);
  assert.equal(events[0]!.response?.status, 500);
});

Deno.test("a response function may return a Response: its status, headers and text are answered and recorded", async () => {
  const { handler, events } = setup({
    response: (e: CapturedEvent) =>
      new Response(JSON.stringify({ got: e.id }), {
        status: 409,
        headers: { "x-app": "one", "content-type": "application/json" },
      }),
  });
  const r = await handler(new Request("http://localhost/hook", { method: "POST", body: "{}" }));
  assert.equal(r.status, 409);
  assert.equal(r.headers.get("x-app"), "one");
  assert.equal(await r.text(), JSON.stringify({ got: events[0]!.id }));
  assert.equal(events[0]!.response?.status, 409);
  assert.equal(events[0]!.response?.body, JSON.stringify({ got: events[0]!.id }));
});

Deno.test("a fixed response that is a Response object is refused at load, saying what to write", () => {
  assert.throws(
    () =>
      validateConfig({
        port: 0,
        endpoints: [{ name: "a", path: "/a", method: "POST", response: new Response("x") }],
      }, null),
    (error: unknown) =>
      error instanceof ConfigError &&
      error.issues.some((i) =>
        /response is a Response object: .*Write \{ status, headers, body, delayMs \}/.test(i)
      ),
  );
});

Deno.test("mayAnswer() is false only where planAnswer() gives the plain 200", async () => {
  const { endpoints } = validateConfig({
    port: 0,
    endpoints: [
      { name: "plain", path: "/a", method: "POST" },
      { name: "secret", path: "/b", method: "POST", provider: "github", secret: "s" },
      { name: "enforced", path: "/c", method: "POST", provider: "github", secret: "s", enforce: true },
      { name: "fixed", path: "/d", method: "POST", response: { status: 202, body: "queued" } },
      { name: "custom", path: "/e", method: "POST", response: () => ({ status: 204 }) },
    ],
  }, null);
  const examinations: Examination[] = [
    { verdict: { status: "unsigned" } },
    { verdict: { status: "valid", scheme: "github-sha256" } } as Examination,
    { verdict: { status: "invalid", scheme: "github-sha256", reason: "mismatch" } } as Examination,
    { verdict: { status: "unsigned" }, challenge: { status: 200, headers: [], body: "c" } } as Examination,
  ];
  let skipped = 0;
  for (const endpoint of endpoints) {
    for (const examined of examinations) {
      const event = { id: "evt_1" } as CapturedEvent;
      const answer = await planAnswer(endpoint, event, examined);
      if (!mayAnswer(endpoint, examined)) {
        skipped++;
        assert.equal(answer, undefined, `${endpoint.name} with ${JSON.stringify(examined)}`);
      }
    }
  }
  assert.ok(skipped >= 6, "the plain endpoints without a challenge are skipped");
});
