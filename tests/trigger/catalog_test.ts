/**
 * Every catalog entry, triggered at a real loopback app that checks it with
 * the provider's official library (where one exists) and hooktap's own
 * verdict: all are accepted.
 */
import assert from "node:assert/strict";
import { makeTriggerKeys, publicKeyFor } from "../../src/trigger/keys.ts";
import { loadCatalog, TRIGGER_CATALOGS } from "../../src/trigger/registry.ts";
import { trigger } from "../../src/trigger/run.ts";
import { startApp } from "./_app.ts";

const SECRETS: Record<string, string> = {
  "standard-webhooks": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
};
const SECRET = "hooktap-test-secret";
const VERIFY_TOKEN = "hooktap-verify-token";
const HMAC = {
  header: "X-Signature",
  algorithm: "sha256",
  encoding: "hex",
  prefix: "sha256=",
  signed: "{body}",
} as const;

Deno.test("every catalog entry is accepted by the provider's official library and hooktap's verdict", async () => {
  const keys = await makeTriggerKeys();
  const publicKeys: Record<string, string> = {};
  for (const p of ["discord", "sendgrid", "standard-webhooks"]) publicKeys[p] = publicKeyFor(p, keys)!;
  let count = 0;
  const failures: string[] = [];
  for (const provider of Object.keys(TRIGGER_CATALOGS)) {
    const secret = SECRETS[provider] ?? SECRET;
    await using app = startApp({ secret, publicKeys, hmac: HMAC, verifyToken: VERIFY_TOKEN });
    const catalog = await loadCatalog(provider);
    for (const event of catalog.events) {
      const keyed = provider === "discord" || provider === "sendgrid";
      const outcome = await trigger({
        provider,
        event,
        to: `${app.url}/${provider}`,
        ...(keyed ? { keys } : { secret }),
        ...(provider === "hmac" ? { hmac: HMAC } : {}),
        ...(provider === "meta" ? { verifyToken: VERIFY_TOKEN } : {}),
      });
      count++;
      const d = outcome.deliveries[0]!;
      const seen = app.seen.at(-1)!;
      // Meta's verification GET is sent unsigned, as Meta sends it: its verify token is what the app checks.
      const verdict = provider === "meta" && event === "subscribe" ? "unsigned" : "valid";
      if (!d.ok || seen.verdict !== verdict || seen.library === false) {
        failures.push(
          `${provider} ${event}: ${d.status} ${seen.verdict} ${seen.reason ?? ""} library=${seen.library}`,
        );
      }
    }
    const withLibrary = app.seen.filter((s) => s.library !== null).length;
    if (["github", "stripe", "standard-webhooks", "twilio", "discord", "sendgrid"].includes(provider)) {
      assert.equal(withLibrary, app.seen.length, `${provider}: every delivery was checked by its library`);
    }
  }
  assert.deepEqual(failures, []);
  assert.ok(count > 300, `the catalog holds ${count} entries`);
});

Deno.test("Standard Webhooks without a secret is signed v1a (Ed25519) with hooktap's key, which the verdict accepts", async () => {
  const keys = await makeTriggerKeys();
  const { examineRequest } = await import("../../src/providers/examine.ts");
  const { createView } = await import("../../src/providers/view.ts");
  const { startRawServer } = await import("./_raw.ts");
  await using server = startRawServer();
  for (const event of ["user.created", "svix:user.created"]) {
    await trigger({ provider: "standard-webhooks", event, to: server.url, keys });
    const r = server.requests.at(-1)!;
    const sig = r.headers.find(([k]) => /-signature$/i.test(k))![1];
    assert.match(sig, /^v1a,[A-Za-z0-9+/]+=*$/);
    const view = createView({
      method: "POST",
      path: "/",
      query: "",
      headers: r.headers,
      body: r.body,
      receivedAt: new Date(),
    });
    const settings = {
      secrets: [],
      tolerance: 300,
      enforce: false,
      publicKey: publicKeyFor("standard-webhooks", keys)!,
    };
    assert.equal((await examineRequest(view, settings)).verdict.status, "valid", event);
    const other = { ...settings, publicKey: publicKeyFor("standard-webhooks", await makeTriggerKeys())! };
    assert.equal((await examineRequest(view, other)).verdict.status, "invalid", event);
  }
});
