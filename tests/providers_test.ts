/**
 * The real CLI: `hooktap dev` answers Slack's and Meta's URL challenges,
 * marks verdicts per line, enforces; `logs` filters by sender and verdict;
 * `inspect` explains; `replay --resign` makes an old Stripe event pass the
 * stripe library at a real target.
 */
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import Stripe from "stripe";
import { LEAST_PRIVILEGE, readEvents, runCli, startDev, withTmpDir, writeFile } from "./_helpers.ts";

const CONFIG = `export default {
  port: 8787,
  endpoints: [
    { name: "slack", path: "/slack", method: "POST", provider: "slack", secret: "slack-signing-secret" },
    { name: "meta", path: "/meta", method: ["GET", "POST"], verifyToken: "meatyhamhock" },
    { name: "stripe", path: "/stripe", method: "POST", secret: Deno.env.get("STRIPE_SECRET") },
    { name: "gh", path: "/gh", method: "POST", secret: "gh-secret", enforce: true },
  ],
};
`;
const PERMS = [...LEAST_PRIVILEGE, "--allow-env=STRIPE_SECRET"];
const ENV = { STRIPE_SECRET: "whsec_cli_secret" };
const BODY = JSON.stringify({ id: "evt_1", type: "invoice.paid", data: { object: { amount: 1200 } } });

Deno.test("hooktap dev answers challenges, marks verdicts, enforces; logs, inspect and replay --resign use them", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", CONFIG);
  const stripe = new Stripe("sk_test_hooktap");
  {
    await using dev = await startDev(tmp.path, [], { permissions: PERMS, env: ENV });
    // Slack's documented url_verification request.
    const slack = await fetch(`${dev.url}/slack`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        token: "Jhj5dZrVaK7ZwHHjRyZWjbDl",
        challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P",
        type: "url_verification",
      }),
    });
    assert.deepEqual(await slack.json(), {
      challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P",
    });
    // Meta's documented subscribe check.
    const meta = await fetch(
      `${dev.url}/meta?hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=meatyhamhock`,
    );
    assert.equal(meta.status, 200);
    assert.equal(await meta.text(), "1158201444");
    // A Stripe event signed 20 minutes ago: stored as expired.
    const header = await stripe.webhooks.generateTestHeaderStringAsync({
      payload: BODY,
      secret: ENV.STRIPE_SECRET,
      timestamp: Math.floor(Date.now() / 1000) - 1200,
    });
    const old = await fetch(`${dev.url}/stripe`, {
      method: "POST",
      headers: { "stripe-signature": header, "content-type": "application/json" },
      body: BODY,
    });
    assert.equal(old.status, 200);
    await old.body?.cancel();
    // enforce: a wrong GitHub signature is refused 401, a right one accepted.
    const ghBody = '{"zen":"hi"}';
    const bad = await fetch(`${dev.url}/gh`, {
      method: "POST",
      headers: { "x-github-event": "ping", "x-hub-signature-256": "sha256=" + "0".repeat(64) },
      body: ghBody,
    });
    assert.equal(bad.status, 401);
    await bad.body?.cancel();
    const good = await fetch(`${dev.url}/gh`, {
      method: "POST",
      headers: {
        "x-github-event": "ping",
        "x-hub-signature-256": "sha256=" + createHmac("sha256", "gh-secret").update(ghBody).digest("hex"),
      },
      body: ghBody,
    });
    assert.equal(good.status, 200);
    await good.body?.cancel();
    assert.equal(await dev.stop(), 0);
    const lines = dev.stdout();
    // Answering a challenge must not make Deno.serve print its warning about reading `request.signal`.
    assert.doesNotMatch(lines + dev.stderr(), /request\.signal/);
    assert.match(lines, /200 +slack .*- slack url_verification \(unsigned\) \[challenge\]/);
    assert.match(lines, /200 +stripe .*✗ stripe invoice\.paid \(expired\)/);
    assert.match(lines, /401 +gh .*✗ github ping \(invalid\) \[enforce\]/);
    assert.match(lines, /200 +gh .*✓ github ping\n/);
  }
  const events = await readEvents(tmp.path);
  assert.equal(events.length, 5); // the refused one is stored too
  const stripeId = events.find((e) => e.endpoint === "stripe")!.id as string;

  const logs = await runCli(["logs", "--verdict", "expired", "--json"], { cwd: tmp.path });
  assert.equal(logs.code, 0);
  const listed = logs.stdout.trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(listed.map((e) => [e.provider, e.type, e.verdict.status]), [[
    "stripe",
    "invoice.paid",
    "expired",
  ]]);
  const table = await runCli(["logs", "--provider", "github"], { cwd: tmp.path });
  assert.match(table.stdout, /gh +POST +\/gh .*github ping +✗ invalid\n.*github ping +✓ valid\n$/s);
  const badVerdict = await runCli(["logs", "--verdict", "bogus"], { cwd: tmp.path });
  assert.equal(badVerdict.code, 2);
  assert.match(badVerdict.stderr, /--verdict must be one of valid, invalid, expired, unsigned, no-secret/);

  const inspect = await runCli(["inspect", stripeId], { cwd: tmp.path });
  assert.match(
    inspect.stdout,
    /Signature\n +sender +Stripe \(stripe\)\n +event +invoice\.paid\n +verdict +✗ expired/,
  );
  assert.match(inspect.stdout, /why +the signature is right but its timestamp is 20 min before it arrived/);
  const challenge = await runCli(["inspect", "--endpoint", "meta"], { cwd: tmp.path });
  assert.match(challenge.stdout, /Response \(challenge\)\n +status +200\n/);

  // The target verifies with the stripe library.
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (request) => {
    const body = await request.text();
    try {
      await stripe.webhooks.constructEventAsync(
        body,
        request.headers.get("stripe-signature") ?? "",
        ENV.STRIPE_SECRET,
      );
      return new Response(`verified ${JSON.parse(body).data.object.amount}`);
    } catch (error) {
      return new Response(String(error), { status: 400 });
    }
  });
  try {
    const to = `http://127.0.0.1:${server.addr.port}/stripe`;
    const plain = await runCli(["replay", stripeId, "--to", to], { cwd: tmp.path });
    assert.equal(plain.code, 1);
    assert.match(plain.stdout, /400/);
    const resigned = await runCli(["replay", stripeId, "--to", to, "--resign"], {
      cwd: tmp.path,
      permissions: PERMS,
      env: ENV,
    });
    assert.equal(resigned.code, 0, resigned.stderr);
    assert.match(resigned.stderr, /Re-signed as stripe/);
    assert.match(resigned.stdout, /200 OK.*\nverified 1200/s);
    const changed = await runCli(["replay", stripeId, "--to", to, "--set", "data.object.amount=5000"], {
      cwd: tmp.path,
      permissions: PERMS,
      env: ENV,
    });
    assert.equal(changed.code, 0, changed.stderr);
    assert.match(changed.stdout, /verified 5000/);
    // Without the secret (variable unset), hooktap says why the app rejects it.
    const noSecret = await runCli(["replay", stripeId, "--to", to, "--resign"], {
      cwd: tmp.path,
      permissions: PERMS,
    });
    assert.equal(noSecret.code, 1);
    assert.match(
      noSecret.stderr,
      /Cannot re-sign evt_\S+: the stored Stripe signature covers its timestamp \(about 20 min ago\).*older than 300 s, so the app will reject the replay as expired.*STRIPE_WEBHOOK_SECRET/s,
    );
  } finally {
    await server.shutdown();
  }
});

Deno.test("an unsigned request with Stripe's User-Agent is Stripe's: typed, filtered by --provider stripe, unsigned", async () => {
  await using tmp = await withTmpDir();
  {
    // The built-in starter config: one endpoint, no secret (as a Stripe endpoint before its secret is set).
    await using dev = await startDev(tmp.path);
    const res = await fetch(`${dev.url}/webhook`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "user-agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)",
      },
      body: BODY,
    });
    assert.equal(res.status, 200);
    await res.body?.cancel();
    // Another sender's request without the agent stays generic (`--provider generic` lists it).
    const other = await fetch(`${dev.url}/webhook`, { method: "POST", body: BODY });
    await other.body?.cancel();
  }
  const listed = await runCli(["logs", "--provider", "stripe", "--json"], { cwd: tmp.path });
  assert.equal(listed.code, 0, listed.stderr);
  const events = listed.stdout.trim().split("\n").map((line) => JSON.parse(line));
  assert.equal(events.length, 1, listed.stdout);
  const unknown = await runCli(["logs", "--provider", "generic", "--json"], { cwd: tmp.path });
  assert.equal(unknown.code, 0, unknown.stderr);
  assert.equal(unknown.stdout.trim().split("\n").length, 1, unknown.stdout);
  assert.equal(JSON.parse(unknown.stdout).provider, undefined);
  const table = await runCli(["logs", "--provider", "stripe"], { cwd: tmp.path });
  assert.match(table.stdout, /stripe invoice\.paid +- unsigned/);
});
