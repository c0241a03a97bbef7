/**
 * hooktap's verdicts against the providers' own libraries: for each scheme
 * a request signed by the library (valid, then tampered, wrong secret and
 * expired) gets the verdict that the library's own verification agrees with.
 */
import assert from "node:assert/strict";
import { sign as githubSign, verify as githubVerify } from "@octokit/webhooks-methods";
import { EventWebhook } from "@sendgrid/eventwebhook";
import { verifyKey } from "discord-interactions";
import { Webhook as StandardWebhook } from "standardwebhooks";
import Stripe from "stripe";
import { Webhook as SvixWebhook } from "svix";
import twilioLib from "twilio";
import { statusOf } from "./_test_view.ts";

const BODY = JSON.stringify({ id: "evt_1", type: "invoice.paid", data: { object: { amount: 1200 } } });
const TAMPERED = BODY.replace("1200", "9999");
const NOW = new Date();
const OLD = new Date(NOW.getTime() - 20 * 60_000);

Deno.test("GitHub: verdicts agree with @octokit/webhooks-methods", async () => {
  const secret = "gh-secret";
  const sig = await githubSign(secret, BODY);
  const h = { "X-GitHub-Event": "push", "X-Hub-Signature-256": sig };
  assert.equal(await githubVerify(secret, BODY, sig), true);
  assert.deepEqual(await statusOf(h, BODY, { secrets: [secret] }), {
    provider: "github",
    status: "valid",
    type: "push",
  });
  assert.equal(await githubVerify(secret, TAMPERED, sig), false);
  assert.equal((await statusOf(h, TAMPERED, { secrets: [secret] })).status, "invalid");
  assert.equal(await githubVerify("other", BODY, sig), false);
  const wrong = await statusOf(h, BODY, { secrets: ["other"] });
  assert.equal(wrong.status, "invalid");
  assert.match(wrong.reason!, /secret is wrong/);
  // Rotation: the second secret matches.
  assert.match((await statusOf(h, BODY, { secrets: ["new", secret] })).reason!, /secret #2 of 2/);
  assert.equal(
    (await statusOf({ "X-GitHub-Event": "push" }, BODY, { secrets: [secret] })).status,
    "unsigned",
  );
  assert.equal((await statusOf(h, BODY, {})).status, "no-secret");
});

Deno.test("GitHub: a body re-serialized on the way is named as the reason", async () => {
  const secret = "gh-secret";
  const pretty = JSON.stringify(JSON.parse(BODY), null, 2);
  const sig = await githubSign(secret, BODY);
  const r = await statusOf({ "X-GitHub-Event": "push", "X-Hub-Signature-256": sig }, pretty, {
    secrets: [secret],
  });
  assert.equal(r.status, "invalid");
  assert.match(
    r.reason!,
    /body was changed on the way: it was signed as JSON\.stringify\(JSON\.parse\(body\)\)/,
  );
  const malformed = await statusOf({ "X-GitHub-Event": "push", "X-Hub-Signature-256": "md5=zz" }, BODY, {
    secrets: [secret],
  });
  assert.match(malformed.reason!, /header is malformed/);
});

Deno.test("Stripe: verdicts agree with stripe.webhooks.constructEventAsync", async () => {
  const stripe = new Stripe("sk_test_hooktap");
  const secret = "whsec_test_secret";
  const accepts = (body: string, header: string, key = secret) =>
    stripe.webhooks.constructEventAsync(body, header, key).then(() => true, () => false);
  const header = await stripe.webhooks.generateTestHeaderStringAsync({ payload: BODY, secret });
  const h = { "Stripe-Signature": header };
  assert.equal(await accepts(BODY, header), true);
  assert.deepEqual(await statusOf(h, BODY, { secrets: [secret] }), {
    provider: "stripe",
    status: "valid",
    type: "invoice.paid",
  });
  assert.equal(await accepts(TAMPERED, header), false);
  assert.equal((await statusOf(h, TAMPERED, { secrets: [secret] })).status, "invalid");
  assert.equal(await accepts(BODY, header, "whsec_other"), false);
  assert.equal((await statusOf(h, BODY, { secrets: ["whsec_other"] })).status, "invalid");
  const old = await stripe.webhooks.generateTestHeaderStringAsync({
    payload: BODY,
    secret,
    timestamp: Math.floor(OLD.getTime() / 1000),
  });
  assert.equal(await accepts(BODY, old), false);
  const expired = await statusOf({ "Stripe-Signature": old }, BODY, { secrets: [secret] });
  assert.equal(expired.status, "expired");
  assert.match(expired.reason!, /20 min before it arrived, outside the 300 s tolerance/);
});

for (
  const [name, Lib, prefix] of [
    ["standardwebhooks", StandardWebhook, "webhook"],
    ["svix", SvixWebhook, "svix"],
  ] as const
) {
  Deno.test(`Standard Webhooks: verdicts agree with ${name}`, async () => {
    const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const lib = new Lib(secret);
    const signed = (at: Date) => {
      const sig = lib.sign("msg_1", at, BODY);
      return {
        [`${prefix}-id`]: "msg_1",
        [`${prefix}-timestamp`]: String(Math.floor(at.getTime() / 1000)),
        [`${prefix}-signature`]: sig,
      };
    };
    const accepts = (body: string, headers: Record<string, string>, key = secret) => {
      try {
        new Lib(key).verify(body, headers);
        return true;
      } catch {
        return false;
      }
    };
    const h = signed(NOW);
    assert.equal(accepts(BODY, h), true);
    assert.equal((await statusOf(h, BODY, { secrets: [secret] })).status, "valid");
    assert.equal(accepts(TAMPERED, h), false);
    assert.equal((await statusOf(h, TAMPERED, { secrets: [secret] })).status, "invalid");
    const other = "whsec_" + btoa("another-secret-of-32-bytes-long!");
    assert.equal(accepts(BODY, h, other), false);
    assert.equal((await statusOf(h, BODY, { secrets: [other] })).status, "invalid");
    // Several signatures in the header: the second one is right.
    const several = {
      ...h,
      [`${prefix}-signature`]: `v1,${btoa("x".repeat(32))} ${h[`${prefix}-signature`]}`,
    };
    assert.equal(accepts(BODY, several), true);
    assert.equal((await statusOf(several, BODY, { secrets: [secret] })).status, "valid");
    const old = signed(OLD);
    assert.equal(accepts(BODY, old), false);
    assert.equal((await statusOf(old, BODY, { secrets: [secret] })).status, "expired");
  });
}

Deno.test("Standard Webhooks: v1a Ed25519 signatures verify with a whpk_ public key", async () => {
  const pair = await crypto.subtle.generateKey("Ed25519", true, ["sign", "verify"]) as CryptoKeyPair;
  const raw = new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey));
  const publicKey = "whpk_" + btoa(String.fromCharCode(...raw));
  const ts = String(Math.floor(NOW.getTime() / 1000));
  const sign = async (body: string) =>
    btoa(
      String.fromCharCode(
        ...new Uint8Array(
          await crypto.subtle.sign(
            "Ed25519",
            pair.privateKey,
            new TextEncoder().encode(`msg_2.${ts}.${body}`),
          ),
        ),
      ),
    );
  const h = {
    "webhook-id": "msg_2",
    "webhook-timestamp": ts,
    "webhook-signature": `v1a,${await sign(BODY)}`,
  };
  assert.equal((await statusOf(h, BODY, { publicKey })).status, "valid");
  assert.equal((await statusOf(h, TAMPERED, { publicKey })).status, "invalid");
});

Deno.test("Twilio: verdicts agree with twilio.validateRequest, over the public URL", async () => {
  const token = "twilio-auth-token";
  const url = "https://abc.ngrok.app/sms?x=1";
  const params = { From: "+15551234567", Body: "hello", SmsStatus: "received", To: "+15557654321" };
  const body = new URLSearchParams(params).toString();
  const sig = twilioLib.getExpectedTwilioSignature(token, url, params);
  const h: [string, string][] = [
    ["Host", "localhost:8787"],
    ["X-Forwarded-Host", "abc.ngrok.app"],
    ["X-Forwarded-Proto", "https"],
    ["Content-Type", "application/x-www-form-urlencoded"],
    ["X-Twilio-Signature", sig],
  ];
  const at = { path: "/sms", query: "x=1" };
  assert.equal(twilioLib.validateRequest(token, sig, url, params), true);
  assert.deepEqual(await statusOf(h, body, { secrets: [token] }, at), {
    provider: "twilio",
    status: "valid",
    type: "received",
  });
  const tampered = new URLSearchParams({ ...params, Body: "bye" });
  assert.equal(twilioLib.validateRequest(token, sig, url, Object.fromEntries(tampered)), false);
  assert.equal((await statusOf(h, tampered.toString(), { secrets: [token] }, at)).status, "invalid");
  assert.equal(twilioLib.validateRequest("other", sig, url, params), false);
  assert.equal((await statusOf(h, body, { secrets: ["other"] }, at)).status, "invalid");
  // A proxy that drops X-Forwarded-Proto: the URL differs, and hooktap says which one was signed.
  const http = h.filter(([k]) => k !== "X-Forwarded-Proto").map((
    [k, v],
  ): [string, string] => [k, k === "Host" ? "abc.ngrok.app" : v]);
  const httpUrl = url.replace("https:", "http:");
  const sigHttp = twilioLib.getExpectedTwilioSignature(token, url, params);
  assert.equal(twilioLib.validateRequest(token, sigHttp, httpUrl, params), false);
  const moved = await statusOf(
    http.filter(([k]) => k !== "X-Forwarded-Host"),
    body,
    { secrets: [token] },
    at,
  );
  assert.equal(moved.status, "valid"); // no X-Forwarded-Proto and a public host: https is assumed
  const local = await statusOf(
    [...h.filter(([k]) => !/^x-forwarded/i.test(k))],
    body,
    { secrets: [token] },
    at,
  );
  assert.equal(local.status, "invalid");
  assert.match(local.reason!, /signed URL differs|URL configured at Twilio/);
});

Deno.test("Discord: verdicts agree with discord-interactions verifyKey", async () => {
  const pair = await crypto.subtle.generateKey("Ed25519", true, ["sign", "verify"]) as CryptoKeyPair;
  const hex = (b: ArrayBuffer) =>
    Array.from(new Uint8Array(b), (x) => x.toString(16).padStart(2, "0")).join("");
  const publicKey = hex(await crypto.subtle.exportKey("raw", pair.publicKey));
  const ts = String(Math.floor(NOW.getTime() / 1000));
  const body = '{"type":2,"data":{"name":"ping"}}';
  const sig = hex(await crypto.subtle.sign("Ed25519", pair.privateKey, new TextEncoder().encode(ts + body)));
  const h = { "X-Signature-Ed25519": sig, "X-Signature-Timestamp": ts };
  assert.equal(await verifyKey(body, sig, ts, publicKey), true);
  assert.deepEqual(await statusOf(h, body, { publicKey }), {
    provider: "discord",
    status: "valid",
    type: "APPLICATION_COMMAND",
  });
  const tampered = body.replace("ping", "pong");
  assert.equal(await verifyKey(tampered, sig, ts, publicKey), false);
  assert.equal((await statusOf(h, tampered, { publicKey })).status, "invalid");
  const other = hex(
    await crypto.subtle.exportKey(
      "raw",
      (await crypto.subtle.generateKey("Ed25519", true, ["sign", "verify"]) as CryptoKeyPair).publicKey,
    ),
  );
  assert.equal(await verifyKey(body, sig, ts, other), false);
  assert.equal((await statusOf(h, body, { publicKey: other })).status, "invalid");
});

/** A raw r||s ECDSA signature as DER, the form SendGrid sends. */
function toDer(raw: Uint8Array): Uint8Array {
  const int = (b: Uint8Array) => {
    let i = 0;
    while (i < b.length - 1 && b[i] === 0) i++;
    const v = b.subarray(i);
    return v[0]! & 0x80 ? [0x02, v.length + 1, 0, ...v] : [0x02, v.length, ...v];
  };
  const body = [...int(raw.subarray(0, 32)), ...int(raw.subarray(32))];
  return new Uint8Array([0x30, body.length, ...body]);
}

Deno.test("SendGrid: verdicts agree with @sendgrid/eventwebhook", async () => {
  const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
    "sign",
    "verify",
  ]) as CryptoKeyPair;
  const b64 = (b: ArrayBuffer | Uint8Array) => btoa(String.fromCharCode(...new Uint8Array(b)));
  const publicKey = b64(await crypto.subtle.exportKey("spki", pair.publicKey));
  const ts = String(Math.floor(NOW.getTime() / 1000));
  const body = '[{"email":"a@example.com","event":"delivered","timestamp":1700000000}]';
  const raw = new Uint8Array(
    await crypto.subtle.sign(
      { name: "ECDSA", hash: "SHA-256" },
      pair.privateKey,
      new TextEncoder().encode(ts + body),
    ),
  );
  const sig = b64(toDer(raw));
  const lib = new EventWebhook();
  const key = lib.convertPublicKeyToECDSA(publicKey);
  const h = { "X-Twilio-Email-Event-Webhook-Signature": sig, "X-Twilio-Email-Event-Webhook-Timestamp": ts };
  assert.equal(lib.verifySignature(key, body, sig, ts), true);
  assert.deepEqual(await statusOf(h, body, { publicKey }), {
    provider: "sendgrid",
    status: "valid",
    type: "delivered",
  });
  const tampered = body.replace("delivered", "bounce");
  assert.equal(lib.verifySignature(key, tampered, sig, ts), false);
  assert.equal((await statusOf(h, tampered, { publicKey })).status, "invalid");
});
