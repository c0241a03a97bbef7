/**
 * What `hooktap replay` does with signatures, through the real CLI: an event
 * whose signature was invalid at receipt is never re-signed into a valid one
 * without `--resign-invalid` (issue 33.4), and the advice for a stale
 * signature names its true cause when the secret is there (33.9). The app
 * verifies with Stripe's own library.
 */
import assert from "node:assert/strict";
import Stripe from "stripe";
import { LEAST_PRIVILEGE, runCli, withTmpDir } from "./_helpers.ts";
import { captureEvents } from "./_capture.ts";

const SECRET = "whsec_signatures_test";

const CONFIG = `export default {
  port: 0,
  endpoints: [
    { name: "stripe", path: "/stripe", method: "POST", provider: "stripe", secret: "${SECRET}" },
  ],
};
`;

/** An app that verifies Stripe signatures with the `stripe` library: 200 when accepted, 400 otherwise. */
function stripeApp() {
  const got: string[] = [];
  const stripe = new Stripe("sk_test_x");
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const body = await req.text();
    got.push(body);
    try {
      await stripe.webhooks.constructEventAsync(body, req.headers.get("stripe-signature") ?? "", SECRET);
      return new Response("ok");
    } catch (error) {
      return new Response(`bad signature: ${(error as Error).message.slice(0, 40)}`, { status: 400 });
    }
  });
  return { url: `http://127.0.0.1:${server.addr.port}`, got, [Symbol.asyncDispose]: () => server.shutdown() };
}

/** Stores a Stripe event signed with another secret (verdict invalid) and one signed right an hour ago. */
async function store(dir: string): Promise<{ invalid: string; stale: string }> {
  const stripe = new Stripe("sk_test_x");
  const bad = '{"id":"evt_bad","type":"invoice.paid"}';
  const old = '{"id":"evt_old","type":"invoice.paid"}';
  const badHeader = await stripe.webhooks.generateTestHeaderStringAsync({
    payload: bad,
    secret: "whsec_someone_else",
  });
  const oldHeader = await stripe.webhooks.generateTestHeaderStringAsync({
    payload: old,
    secret: SECRET,
    timestamp: Math.floor(Date.now() / 1000) - 3600,
  });
  const json: [string, string] = ["content-type", "application/json"];
  const [invalid, stale] = await captureEvents(dir, [
    { path: "/stripe", headers: [json, ["stripe-signature", badHeader]], body: bad },
    { path: "/stripe", headers: [json, ["stripe-signature", oldHeader]], body: old },
  ], CONFIG);
  return { invalid: invalid!, stale: stale! };
}

Deno.test("`replay --resign` refuses an event whose signature was invalid at receipt, naming --resign-invalid; that option re-signs it", async () => {
  await using tmp = await withTmpDir();
  const { invalid } = await store(tmp.path);
  const logs = await runCli(["logs", "--json", "--verdict", "invalid"], { cwd: tmp.path });
  assert.equal(JSON.parse(logs.stdout.trim()).id, invalid, "the event is stored as invalid");
  await using app = stripeApp();

  const refused = await runCli(["replay", invalid, "--to", app.url, "--resign"], { cwd: tmp.path });
  assert.equal(refused.code, 1, refused.stderr);
  assert.match(
    refused.stderr,
    /Refusing to re-sign evt_\S+: its signature was invalid when hooktap received it/,
  );
  assert.match(refused.stderr, /use --resign-invalid to re-sign it anyway/);
  assert.equal(app.got.length, 0, "nothing was sent");

  // Without re-signing it goes as it came, and the app refuses it as the sender's bad signature.
  const plain = await runCli(["replay", invalid, "--to", app.url], { cwd: tmp.path });
  assert.equal(plain.code, 1, plain.stderr);
  assert.match(plain.stdout, /^400 /);

  const forced = await runCli(["replay", invalid, "--to", app.url, "--resign-invalid"], { cwd: tmp.path });
  assert.equal(forced.code, 0, forced.stderr);
  assert.match(forced.stderr, /Re-signed as stripe/);
  assert.equal(app.got.length, 2);
});

Deno.test("bulk `replay --resign` re-signs the stale event and refuses the invalid one (not sent)", async () => {
  await using tmp = await withTmpDir();
  const { invalid } = await store(tmp.path);
  await using app = stripeApp();
  const r = await runCli(["replay", "--endpoint", "stripe", "--to", app.url, "--resign"], { cwd: tmp.path });
  assert.equal(r.code, 1, r.stderr);
  assert.match(
    r.stderr,
    /Sent 1 of 2: 1 answered 2xx, 0 failed, 1 not sent \(refused before sending: your app never saw it\)\. Answers: 1 × 200, 1 × not sent\./,
  );
  assert.match(r.stderr, /1 of them was not sent: its signature was invalid when hooktap received it/);
  assert.match(r.stderr, new RegExp(`${invalid} → .*Refusing to re-sign`));
  assert.deepEqual(app.got, ['{"id":"evt_old","type":"invoice.paid"}']);
});

Deno.test("bulk `replay` of an event stored invalid: the app's refusal is called right, and no 'send again' hint", async () => {
  await using tmp = await withTmpDir();
  await store(tmp.path);
  await using app = stripeApp();
  const one = await runCli(["replay", "--verdict", "invalid", "--to", app.url], { cwd: tmp.path });
  assert.equal(one.code, 1, one.stderr);
  assert.match(one.stderr, /Replaying 1 event to /);
  assert.match(
    one.stderr,
    /1 of them was stored with an invalid signature and sent as received: your app refusing/,
  );
  assert.doesNotMatch(one.stderr, /Send them again once the app is fixed/);
  // With the stale one beside it: that one the hint can help (--resign).
  const both = await runCli(["replay", "--endpoint", "stripe", "--to", app.url], { cwd: tmp.path });
  assert.match(both.stderr, /Replaying 2 events to /);
  assert.match(both.stderr, /1 of them was stored with an invalid signature/);
  assert.match(both.stderr, /Send them again once the app is fixed: .*--resign/);
  assert.equal(app.got.length, 3, "each was sent as received");
});

Deno.test("stale-signature advice of `replay ID` names the old timestamp and --resign when the secret is configured", async () => {
  await using tmp = await withTmpDir();
  const { stale } = await store(tmp.path);
  await using app = stripeApp();
  // --to and no --resign: the config is read for the advice, and the secret is there: --resign.
  const r = await runCli(["replay", stale, "--to", app.url], { cwd: tmp.path });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /warning: the stored Stripe signature covers its timestamp \(about 60 min ago\)/);
  assert.match(r.stderr, /send it with --resign to sign it afresh with the endpoint's secret/);
  assert.doesNotMatch(r.stderr, /add the signing secret/);
  const fixed = await runCli(["replay", stale, "--to", app.url, "--resign"], { cwd: tmp.path });
  assert.equal(fixed.code, 0, fixed.stderr);
});

Deno.test("the advice still says to add the secret when the endpoint truly has none", async () => {
  await using tmp = await withTmpDir();
  const { stale } = await store(tmp.path);
  await Deno.writeTextFile(`${tmp.path}/hooktap.config.ts`, CONFIG.replace(`, secret: "${SECRET}"`, ""));
  await using app = stripeApp();
  const r = await runCli(["replay", stale, "--to", app.url, "--resign"], { cwd: tmp.path });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /Cannot re-sign evt_\S+: .*add the signing secret to endpoint "stripe"/);
  assert.equal(app.got.length, 0);
  // An endpoint with no signing settings at all, its config read (not --resign): the advice is to add the
  // secret, not a --resign that would fail for want of it.
  await Deno.writeTextFile(
    `${tmp.path}/hooktap.config.ts`,
    `export default { port: 0, endpoints: [{ name: "stripe", path: "/stripe", method: "POST" }] };\n`,
  );
  const read = await runCli(["replay", stale, "--to", app.url, "--config", "hooktap.config.ts"], {
    cwd: tmp.path,
  });
  assert.match(read.stderr, /warning: the stored Stripe signature covers its timestamp/);
  assert.match(read.stderr, /add the signing secret to endpoint "stripe" in hooktap\.config\.ts/);
  assert.doesNotMatch(read.stderr, /send it with --resign to sign it afresh/);
});

Deno.test("`replay ID --to` of a stale event reads the config for its advice: no secret there, set it (not a --resign that fails)", async () => {
  await using tmp = await withTmpDir();
  const { stale } = await store(tmp.path);
  await using app = stripeApp();
  // The endpoint has no secret: --resign would fail, so the advice is to set the secret.
  await Deno.writeTextFile(`${tmp.path}/hooktap.config.ts`, CONFIG.replace(`, secret: "${SECRET}"`, ""));
  const none = await runCli(["replay", stale, "--to", app.url], { cwd: tmp.path });
  assert.equal(none.code, 1, none.stderr);
  assert.match(none.stderr, /warning: the stored Stripe signature covers its timestamp \(about 60 min ago\)/);
  assert.match(none.stderr, /add the signing secret to endpoint "stripe" in hooktap\.config\.ts/);
  assert.doesNotMatch(none.stderr, /send it with --resign to sign it afresh/);
  const fails = await runCli(["replay", stale, "--to", app.url, "--resign"], { cwd: tmp.path });
  assert.equal(fails.code, 1, "--resign indeed fails there");
  // Bulk: the summary says the same, and its command leaves --resign out.
  const bulk = await runCli(["replay", "--grep", "evt_old", "--to", app.url], { cwd: tmp.path });
  assert.equal(bulk.code, 1, bulk.stderr);
  assert.match(
    bulk.stderr,
    /1 of them carried a stale signature, and endpoint "stripe" has no secret in hooktap\.config\.ts to sign them afresh with: set it \(`secret`\), then send them with --resign\./,
  );
  assert.match(bulk.stderr, /Send them again once the app is fixed: .*replay --grep evt_old --to \S+\n/);
  assert.doesNotMatch(bulk.stderr, /add --resign|--to \S+ --resign/);
  // A config this run may not load (it reads Deno.env, and the replay has no --allow-env): the send goes on
  // as stored, and the advice is --resign, which reads the config and works once it may.
  await Deno.writeTextFile(
    `${tmp.path}/hooktap.config.ts`,
    CONFIG.replace(`"${SECRET}"`, `Deno.env.get("STRIPE_WEBHOOK_SECRET")`),
  );
  const unread = await runCli(["replay", stale, "--to", app.url], { cwd: tmp.path });
  assert.equal(unread.code, 1, unread.stderr);
  assert.match(unread.stderr, /send it with --resign to sign it afresh with the endpoint's secret/);
  const resigned = await runCli(["replay", stale, "--to", app.url, "--resign"], {
    cwd: tmp.path,
    permissions: [...LEAST_PRIVILEGE, "--allow-env=STRIPE_WEBHOOK_SECRET"],
    env: { STRIPE_WEBHOOK_SECRET: SECRET },
  });
  assert.equal(resigned.code, 0, resigned.stderr);
});
