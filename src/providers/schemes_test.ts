/**
 * The HMAC schemes without an official verification library, signed in the
 * test with `crypto.subtle` (an implementation independent of hooktap's
 * node:crypto) exactly as each provider documents: valid, tampered, wrong
 * secret and (when timestamped) expired; then re-signing round-trips.
 */
import assert from "node:assert/strict";
import { resignRequest } from "./resign.ts";
import { statusOf, testSettings } from "./_test_view.ts";

type Alg = "SHA-256" | "SHA-1";
async function mac(key: string, data: string, enc: "hex" | "base64", alg: Alg = "SHA-256"): Promise<string> {
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
  return enc === "hex"
    ? Array.from(sig, (b) => b.toString(16).padStart(2, "0")).join("")
    : btoa(String.fromCharCode(...sig));
}

const BODY = '{"event":"x","type":"invoice.paid","event_type":"transaction.completed","action":"create"}';
const TAMPERED = BODY.replace("create", "remove");
const now = () => Math.floor(Date.now() / 1000);

interface Case {
  provider: string;
  /** Signed headers of `body` with `secret` at unix time `ts`. */
  sign(secret: string, body: string, ts: number): Promise<Record<string, string>>;
  timestamped: boolean;
  type?: string;
}

const CASES: Case[] = [
  {
    provider: "slack",
    timestamped: true,
    sign: async (s, b, ts) => ({
      "X-Slack-Request-Timestamp": String(ts),
      "X-Slack-Signature": "v0=" + await mac(s, `v0:${ts}:${b}`, "hex"),
    }),
    type: "invoice.paid",
  },
  {
    provider: "shopify",
    timestamped: false,
    sign: async (s, b) => ({
      "X-Shopify-Topic": "orders/create",
      "X-Shopify-Hmac-Sha256": await mac(s, b, "base64"),
    }),
    type: "orders/create",
  },
  {
    provider: "zoom",
    timestamped: true,
    sign: async (s, b, ts) => ({
      "x-zm-request-timestamp": String(ts),
      "x-zm-signature": "v0=" + await mac(s, `v0:${ts}:${b}`, "hex"),
    }),
    type: "x",
  },
  {
    provider: "paddle",
    timestamped: true,
    sign: async (s, b, ts) => ({ "Paddle-Signature": `ts=${ts};h1=` + await mac(s, `${ts}:${b}`, "hex") }),
    type: "transaction.completed",
  },
  {
    provider: "linear",
    timestamped: false,
    sign: async (s, b) => ({ "Linear-Event": "Issue", "Linear-Signature": await mac(s, b, "hex") }),
    type: "Issue.create",
  },
  {
    provider: "meta",
    timestamped: false,
    sign: async (s, b) => ({ "X-Hub-Signature-256": "sha256=" + await mac(s, b, "hex") }),
  },
  {
    provider: "twitch",
    timestamped: true,
    sign: async (s, b, ts) => {
      const iso = new Date(ts * 1000).toISOString();
      return {
        "Twitch-Eventsub-Message-Id": "m1",
        "Twitch-Eventsub-Message-Timestamp": iso,
        "Twitch-Eventsub-Message-Type": "notification",
        "Twitch-Eventsub-Message-Signature": "sha256=" + await mac(s, `m1${iso}${b}`, "hex"),
      };
    },
  },
  {
    provider: "dropbox",
    timestamped: false,
    sign: async (s, b) => ({ "X-Dropbox-Signature": await mac(s, b, "hex") }),
  },
  {
    provider: "x",
    timestamped: false,
    sign: async (s, b) => ({ "x-twitter-webhooks-signature": "sha256=" + await mac(s, b, "base64") }),
  },
];

for (const c of CASES) {
  Deno.test(`${c.provider}: valid, tampered, wrong secret${c.timestamped ? ", expired" : ""}, re-signed`, async () => {
    const secret = `${c.provider}-secret`;
    const body = c.provider === "meta" ? '{"object":"page","entry":[]}' : BODY;
    const headers = await c.sign(secret, body, now());
    const valid = await statusOf(headers, body, { secrets: [secret], provider: c.provider });
    assert.equal(valid.status, "valid", valid.reason);
    if (c.type !== undefined) assert.equal(valid.type, c.type);
    // Detected without a declared provider too.
    assert.equal((await statusOf(headers, body, { secrets: [secret] })).provider, c.provider);
    const tampered = body === BODY ? TAMPERED : body.replace("page", "user");
    assert.equal((await statusOf(headers, tampered, { secrets: [secret] })).status, "invalid");
    const wrong = await statusOf(headers, body, { secrets: ["nope"] });
    assert.equal(wrong.status, "invalid");
    assert.match(wrong.reason!, /secret is wrong/);
    if (c.timestamped) {
      const old = await c.sign(secret, body, now() - 3600);
      assert.equal((await statusOf(old, body, { secrets: [secret] })).status, "expired");
    }
    const p = (await import("./registry.ts")).providerNamed(c.provider)!;
    if (p.resign !== undefined) {
      const old = await c.sign(secret, body, now() - 3600);
      const fresh = await resignRequest(c.provider, {
        method: "POST",
        url: "http://localhost/hook",
        headers: Object.entries(old),
        body: new TextEncoder().encode(body),
      }, testSettings({ secrets: [secret] }));
      assert.equal(
        (await statusOf(fresh, body, { secrets: [secret], provider: c.provider })).status,
        "valid",
      );
    }
  });
}

Deno.test("telegram: the secret token header is compared with the secret", async () => {
  const h = { "X-Telegram-Bot-Api-Secret-Token": "tg-token" };
  const body = '{"update_id":1,"message":{"text":"hi"}}';
  assert.deepEqual(await statusOf(h, body, { secrets: ["tg-token"] }), {
    provider: "telegram",
    status: "valid",
    type: "message",
  });
  assert.equal((await statusOf(h, body, { secrets: ["other"] })).status, "invalid");
});

Deno.test("generic hmac: the configured header, prefix, encoding and signed template", async () => {
  const hmac = {
    header: "X-Acme-Signature",
    algorithm: "sha256" as const,
    encoding: "base64" as const,
    prefix: "sha256=",
    signed: "{header:X-Acme-Timestamp}.{body}",
  };
  const h = {
    "X-Acme-Timestamp": "1700000000",
    "X-Acme-Signature": "sha256=" + await mac("k", `1700000000.${BODY}`, "base64"),
  };
  assert.equal((await statusOf(h, BODY, { secrets: ["k"], hmac })).status, "valid");
  assert.equal(
    (await statusOf({ ...h, "X-Acme-Timestamp": "1" }, BODY, { secrets: ["k"], hmac })).status,
    "invalid",
  );
  assert.match(
    (await statusOf({ "X-Acme-Signature": "md5=1" }, BODY, { secrets: ["k"], hmac })).reason!,
    /malformed/,
  );
});

Deno.test("a secret with a trailing newline is named as the reason", async () => {
  const h = { "X-Shopify-Topic": "orders/create", "X-Shopify-Hmac-Sha256": await mac("shp", BODY, "base64") };
  const r = await statusOf(h, BODY, { secrets: ["shp\n"] });
  assert.match(r.reason!, /whitespace around it .* trimmed, it matches/);
});

Deno.test("a truncated body is named as the reason", async () => {
  const h = {
    "X-Shopify-Topic": "orders/create",
    "X-Shopify-Hmac-Sha256": await mac("shp", BODY, "base64"),
    "Content-Length": String(BODY.length),
  };
  const r = await statusOf(h, BODY.slice(0, 20), { secrets: ["shp"] });
  assert.match(r.reason!, /Content-Length says \d+ bytes, 20 arrived/);
});
