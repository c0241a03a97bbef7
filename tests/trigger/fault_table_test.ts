/**
 * The fault table (docs/trigger.md, issue 35.5): for every provider and every
 * fault, what a real receiver (tests/trigger/_verifiers.ts: the official
 * library, else the documented scheme) does with what `trigger` sent.
 */
import assert from "node:assert/strict";
import { makeTriggerKeys, publicKeyFor } from "../../src/trigger/keys.ts";
import { SIGNED_TIMESTAMP } from "../../src/trigger/plan.ts";
import { loadCatalog, TRIGGER_CATALOGS } from "../../src/trigger/registry.ts";
import { trigger, type TriggerRequest } from "../../src/trigger/run.ts";
import { startRawServer } from "./_raw.ts";
import { verify } from "./_verifiers.ts";

const SECRET = "hooktap-fault-secret";
const SECRETS: Record<string, string> = { "standard-webhooks": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" };
const HMAC = {
  header: "X-Signature",
  algorithm: "sha256",
  encoding: "hex",
  prefix: "sha256=",
  signed: "{body}",
} as const;
/** Key-signed providers whose official library checks no age: a stale delivery verifies, its timestamp is old. */
const NO_AGE_CHECK = new Set(["discord", "sendgrid"]);
const keys = await makeTriggerKeys();
const publicKeys = {
  discord: publicKeyFor("discord", keys)!,
  sendgrid: publicKeyFor("sendgrid", keys)!,
};
const header = (r: { headers: readonly [string, string][] }, name: string) =>
  r.headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];

function request(provider: string, event: string, to: string): TriggerRequest {
  const keyed = provider === "discord" || provider === "sendgrid";
  return {
    provider,
    event,
    to,
    ...(keyed ? { keys } : { secret: SECRETS[provider] ?? SECRET }),
    ...(provider === "hmac" ? { hmac: HMAC } : {}),
  };
}

/** The body without the fields a retry re-signs (Linear's signed webhookTimestamp). */
function _stable(body: Uint8Array): string {
  const text = new TextDecoder().decode(body);
  try {
    const v = JSON.parse(text);
    if (v && typeof v === "object" && "webhookTimestamp" in v) delete v.webhookTimestamp;
    return JSON.stringify(v);
  } catch {
    return text;
  }
}

for (const provider of Object.keys(TRIGGER_CATALOGS)) {
  Deno.test(`fault table: ${provider}`, async () => {
    const catalog = await loadCatalog(provider);
    const event = catalog.events[0]!;
    const rk = { secret: SECRETS[provider] ?? SECRET, publicKeys };
    await using server = startRawServer();
    const base = request(provider, event, `${server.url}/${provider}`);
    const arrived = () => {
      const r = server.requests.at(-1)!;
      return { url: `${server.url}/${provider}`, headers: r.headers, body: r.body };
    };

    // No fault: accepted.
    await trigger(base);
    assert.equal(await verify(provider, arrived(), rk), true, `${provider} ${event}: accepted`);

    // --bad-signature: refused by every real receiver.
    const bad = await trigger({ ...base, fault: { badSignature: true } });
    assert.equal(await verify(provider, arrived(), rk), false, `${provider}: --bad-signature refused`);
    assert.equal(bad.deliveries[0]!.expectRejection, true);

    // --stale: wherever the provider signs a timestamp; refused (or, with no age check, verified but old).
    const stamp = SIGNED_TIMESTAMP[provider];
    if (stamp === undefined) {
      await assert.rejects(() => trigger({ ...base, fault: { stale: true } }), /signs no timestamp/);
    } else {
      await trigger({ ...base, fault: { stale: true } });
      const r = arrived();
      if (NO_AGE_CHECK.has(provider)) {
        assert.equal(await verify(provider, r, rk), true, `${provider}: the library checks no age`);
        const ts = Number(header(r, "header" in stamp ? stamp.header : "")!);
        assert.ok(Date.now() / 1000 - ts > 300, `${provider}: the signed timestamp is stale`);
      } else {
        assert.equal(await verify(provider, r, rk), false, `${provider}: --stale refused`);
      }
    }

    // --retries: each retry re-signed now, accepted, the same delivery (its id kept).
    const before = server.requests.length;
    const out = await trigger({ ...base, fault: { retries: 2 } }, { sleep: () => Promise.resolve() });
    const sent = server.requests.slice(before);
    assert.equal(sent.length, 3);
    for (const r of sent) {
      assert.equal(
        await verify(provider, { url: `${server.url}/${provider}`, headers: r.headers, body: r.body }, rk),
        true,
        `${provider}: retry accepted`,
      );
      assert.equal(_stable(r.body), _stable(sent[0]!.body), `${provider}: a retry carries the same body`);
    }
    const id = out.deliveries[0]!.match;
    if (id !== undefined) {
      for (const r of sent) {
        assert.equal(header(r, id[0]), id[1], `${provider}: ${id[0]} kept across retries`);
      }
    }

    // --duplicate: the same bytes and signature twice, both accepted.
    const at = server.requests.length;
    await trigger({ ...base, fault: { duplicate: true } });
    const [a, b] = server.requests.slice(at);
    assert.deepEqual(a!.body, b!.body);
    assert.deepEqual(a!.headers.filter(([k]) => k !== "Host"), b!.headers.filter(([k]) => k !== "Host"));
    assert.equal(await verify(provider, arrived(), rk), true, `${provider}: duplicate accepted`);
  });
}

Deno.test("fault table: Twitch keeps Twitch-Eventsub-Message-Id across retries, Linear re-stamps webhookTimestamp", async () => {
  await using server = startRawServer();
  const rk = { secret: SECRET, publicKeys };
  await trigger(
    { provider: "twitch", event: "channel.follow", to: server.url, secret: SECRET, fault: { retries: 3 } },
    { sleep: () => Promise.resolve() },
  );
  const ids = server.requests.map((r) => header(r, "Twitch-Eventsub-Message-Id"));
  assert.equal(new Set(ids).size, 1, ids.join(", "));
  assert.deepEqual(server.requests.map((r) => header(r, "Twitch-Eventsub-Message-Retry")), [
    "0",
    "1",
    "2",
    "3",
  ]);

  // A real-time Linear retry: the first delivery an hour old (refused), the retry stamped when sent (accepted).
  let calls = 0;
  const waited: number[] = [];
  const at = server.requests.length;
  await trigger(
    {
      provider: "linear",
      event: "Issue.create",
      to: server.url,
      secret: SECRET,
      fault: { retries: 1, realTime: true },
    },
    {
      now: () => new Date(Date.now() - (calls++ === 0 ? 3600_000 : 0)),
      sleep: (ms) => {
        waited.push(ms);
        return Promise.resolve();
      },
    },
  );
  assert.deepEqual(waited, [60_000], "Linear's first retry comes after a minute");
  const [first, retry] = server.requests.slice(at).map((r) => ({
    url: server.url,
    headers: r.headers,
    body: r.body,
  }));
  assert.equal(await verify("linear", first!, rk), false, "an hour-old webhookTimestamp is refused");
  assert.equal(await verify("linear", retry!, rk), true, "the real-time retry is accepted by @linear/sdk");
  assert.equal(header(first!, "Linear-Delivery"), header(retry!, "Linear-Delivery"));
});

Deno.test("fault table: Microsoft Graph --bad-signature sends a wrong clientState", async () => {
  await using server = startRawServer();
  await trigger({
    provider: "msgraph",
    event: "created",
    to: server.url,
    secret: SECRET,
    fault: { badSignature: true },
  });
  const body = JSON.parse(new TextDecoder().decode(server.requests[0]!.body));
  assert.notEqual(body.value[0].clientState, SECRET);
  assert.equal(typeof body.value[0].clientState, "string");
});
