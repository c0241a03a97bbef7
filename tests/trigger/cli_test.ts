/** `hooktap trigger` as a subprocess, with the installed package's narrow permissions. */
import assert from "node:assert/strict";
import { readEvents, runCli, startDev, withTmpDir, writeFile } from "../_helpers.ts";
import { Webhooks } from "@octokit/webhooks";
import twilio from "twilio";
import { startRawServer } from "./_raw.ts";

const CONFIG = (forward: string) =>
  `export default {
  port: 0,
  endpoints: [
    { name: "stripe", path: "/stripe", method: "POST", provider: "stripe", secret: "whsec_cli", forward: "${forward}" },
    { name: "discord", path: "/discord", method: "POST", provider: "discord" },
  ],
};
`;

Deno.test("trigger --list shows the whole catalog; --list stripe --json one entry per line", async () => {
  await using tmp = await withTmpDir();
  const all = await runCli(["trigger", "--list"], { cwd: tmp.path });
  assert.equal(all.code, 0, all.stderr);
  assert.match(all.stdout, /github\s+263 events\s+generated/);
  assert.match(all.stdout, /\n(\d+) events in all/);
  for (
    const p of [
      "stripe",
      "shopify",
      "slack",
      "standard-webhooks",
      "twilio",
      "zoom",
      "discord",
      "sendgrid",
      "paddle",
      "linear",
      "twitch",
      "meta",
      "telegram",
      "msgraph",
      "x",
      "dropbox",
      "hmac",
    ]
  ) {
    assert.match(all.stdout, new RegExp(`\\n  ${p}\\s`), p);
  }
  const stripe = await runCli(["trigger", "--list", "stripe", "--json"], { cwd: tmp.path });
  const entries = stripe.stdout.trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(entries.find((e) => e.name === "checkout").steps.at(-1), "checkout.session.completed");
  // Stripe's events are generated from the stripe package's declarations; its flows are hand-written.
  assert.ok(entries.filter((e) => e.kind === "event").length >= 250);
  assert.ok(
    entries.filter((e) => e.kind === "event").every((e) =>
      e.generated === true && /^generated from stripe@/.test(e.source)
    ),
  );
  assert.ok(
    entries.filter((e) => e.kind === "sequence").every((e) =>
      e.generated === false && e.source === "hand-written"
    ),
  );
});

Deno.test("trigger --list marks generated and hand-written catalogs and each GitHub entry's origin, in text and --json", async () => {
  await using tmp = await withTmpDir();
  const all = await runCli(["trigger", "--list"], { cwd: tmp.path });
  assert.match(all.stdout, /\n {2}telegram\s+\d+ events {2}hand-written /);
  assert.match(all.stdout, /\n {2}stripe\s+\d+ events {2}generated /);
  assert.match(
    all.stdout,
    /Generated catalogs.*\n {2}github: generated from @octokit\/openapi-webhooks@12\.1\.0 .*@octokit\/webhooks-examples@7\.6\.1/,
  );
  const text = await runCli(["trigger", "--list", "github"], { cwd: tmp.path });
  assert.match(text.stdout, /^263 events, generated from @octokit\/openapi-webhooks@12\.1\.0/);
  assert.match(
    text.stdout,
    /\n {2}pull_request\.merged\s+example, alias: pull_request\.closed with merged: true\n/,
  );
  assert.match(text.stdout, /\n {2}sub_issues\.sub_issue_added\s+schema\n/);
  assert.match(text.stdout, /\nSequences \(hand-written\):\n/);
  const json = await runCli(["trigger", "--list", "github", "--json"], { cwd: tmp.path });
  const entries = json.stdout.trim().split("\n").map((l) => JSON.parse(l));
  const events = entries.filter((e) => e.kind === "event");
  assert.equal(events.length, 263);
  assert.ok(
    events.every((e) => e.generated === true && /^generated from @octokit\/openapi-webhooks@/.test(e.source)),
  );
  const from = Object.groupBy(events, (e: { from: string }) => e.from);
  assert.deepEqual(Object.keys(from).sort(), ["example", "example+schema", "schema"]);
  assert.ok(
    entries.filter((e) => e.kind === "sequence").every((e) => !e.generated && e.source === "hand-written"),
  );
});

Deno.test("bad input: unknown provider or event gets did-you-mean and --list; no dev and no --to; no endpoint", async () => {
  await using tmp = await withTmpDir();
  const provider = await runCli(["trigger", "stirpe", "invoice.paid"], { cwd: tmp.path });
  assert.equal(provider.code, 2);
  assert.match(provider.stderr, /did you mean stripe\?.*hooktap trigger --list/s);
  const noEvent = await runCli(["trigger", "github"], { cwd: tmp.path });
  assert.equal(noEvent.code, 2);
  assert.match(noEvent.stderr, /Say which event to send: hooktap trigger github <event>.*--list github/s);
  const event = await runCli(["trigger", "stripe", "invoice.payed"], { cwd: tmp.path });
  assert.equal(event.code, 2);
  assert.match(event.stderr, /did you mean invoice\.paid\?.*--list stripe/s);
  // GitHub's own event name (X-GitHub-Event: issues) named the sequence "issue" as a typo of it.
  const family = await runCli(["trigger", "github", "issues"], { cwd: tmp.path });
  assert.equal(family.code, 2);
  assert.match(
    family.stderr,
    /GitHub has no single "issues" event: name one of its \d+ "issues\." events, such as issues\.opened, .*or the sequence issue \(issues\.opened → issue_comment\.created → issues\.closed\).*--list github/s,
  );
  const nodev = await runCli(["trigger", "stripe", "invoice.paid"], { cwd: tmp.path });
  assert.equal(nodev.code, 2);
  assert.match(nodev.stderr, /No `hooktap dev` is running.*--to/s);
  await writeFile(tmp.path, "hooktap.config.ts", CONFIG("http://127.0.0.1:9/app"));
  await using dev = await startDev(tmp.path);
  const none = await runCli(["trigger", "github", "push"], { cwd: tmp.path });
  assert.equal(none.code, 1);
  assert.match(none.stderr, /No endpoint in .* receives GitHub events. Add one.*provider: "github"/s);
  const unknown = await runCli(["trigger", "stripe", "invoice.paid", "--endpoint", "nope"], {
    cwd: tmp.path,
  });
  assert.equal(unknown.code, 2, unknown.stderr); // a mistyped option value: a usage error
  assert.match(unknown.stderr, /No endpoint named "nope" in .*Endpoints: stripe, discord\./s);
  const stale = await runCli(["trigger", "github", "push", "--stale", "--to", dev.url], { cwd: tmp.path });
  assert.equal(stale.code, 2);
  const seed = await runCli(["trigger", "stripe", "invoice.paid", "--seed", "3"], { cwd: tmp.path });
  assert.equal(seed.code, 2);
  assert.match(seed.stderr, /--out-of-order/);
});

Deno.test("--set, --set-new and -H mean what they mean for replay, on every event of a sequence", async () => {
  await using tmp = await withTmpDir();
  await using server = startRawServer();
  const run = (...args: string[]) =>
    runCli(["trigger", "github", "pull_request", "--to", server.url, "--secret", "s", ...args], {
      cwd: tmp.path,
    });
  const missing = await run("--set", "repository.nope=1");
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /--set repository\.nope: .*no field "repository\.nope".*add --set-new/);
  const alone = await run("--set-new");
  assert.equal(alone.code, 2);
  assert.match(
    alone.stderr,
    /--set-new goes with --set <\[step:\]path=value>: give both, or leave --set-new out/,
  );
  assert.equal(server.requests.length, 0, "nothing is sent when an override is refused");
  const sent = await run(
    "--set",
    "repository.name=renamed",
    "--set",
    "repository.nope=1",
    "--set-new",
    "-H",
    "x-github-event: other",
  );
  assert.equal(sent.code, 0, sent.stderr);
  assert.equal(server.requests.length, 3);
  for (const r of server.requests) {
    const body = JSON.parse(new TextDecoder().decode(r.body));
    assert.deepEqual([body.repository.name, body.repository.nope], ["renamed", 1]);
    // -H replaces the header in its place and case, as replay's -H does.
    assert.deepEqual(r.headers.filter(([k]) => k.toLowerCase() === "x-github-event"), [[
      "X-GitHub-Event",
      "other",
    ]]);
  }
});

Deno.test("trigger into a running dev: captured, verified, marked in logs, forwarded to the app", async () => {
  await using tmp = await withTmpDir();
  const got: string[] = [];
  await using app = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    got.push(await req.text());
    return new Response("ok");
  });
  await writeFile(tmp.path, "hooktap.config.ts", CONFIG(`http://127.0.0.1:${app.addr.port}/app`));
  await using _dev = await startDev(tmp.path);
  const sent = await runCli(["trigger", "stripe", "invoice.paid", "--duplicate", "--json"], {
    cwd: tmp.path,
  });
  assert.equal(sent.code, 0, sent.stderr);
  const lines = sent.stdout.trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(lines.map((l) => [l.event, l.fault ?? null, l.status]), [
    ["invoice.paid", null, 200],
    ["invoice.paid", "duplicate", 200],
  ]);
  const stale = await runCli(["trigger", "stripe", "invoice.paid", "--stale"], { cwd: tmp.path });
  assert.equal(stale.code, 0, stale.stdout + stale.stderr);
  assert.match(stale.stdout, /dev's verdict: expired/);
  const events = await readEvents(tmp.path);
  assert.equal(events.length, 3);
  assert.deepEqual(events.map((e) => (e.verdict as { status: string }).status), [
    "valid",
    "valid",
    "expired",
  ]);
  assert.deepEqual(events.map((e) => (e.trigger as { fault?: string }).fault ?? null), [
    null,
    "duplicate",
    "stale",
  ]);
  const logs = await runCli(["logs"], { cwd: tmp.path });
  assert.match(logs.stdout, /stripe invoice\.paid \[trigger: duplicate\]/);
  assert.match(logs.stdout, /\[trigger: stale\]/);
  const deadline = Date.now() + 10_000;
  while (got.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.equal(got.length, 3, "dev forwarded every triggered event to the app");
  assert.equal(JSON.parse(got[0]!).type, "invoice.paid");
  const discord = await runCli(["trigger", "discord", "APPLICATION_COMMAND"], { cwd: tmp.path });
  assert.equal(discord.code, 0, discord.stderr);
  assert.match(discord.stderr, /public key: [0-9a-f]{64}/);
  const stat = await Deno.stat(`${tmp.path}/.hooktap/trigger-keys.json`);
  assert.equal(stat.mode! & 0o777, 0o600);
  const last = (await readEvents(tmp.path)).at(-1)!;
  assert.equal((last.verdict as { status: string }).status, "valid", "dev trusts hooktap's trigger key");
});

Deno.test("completion knows trigger's providers and events", async () => {
  await using tmp = await withTmpDir();
  const providers = await runCli(["complete", "--", "trigger", "st"], { cwd: tmp.path });
  assert.match(providers.stdout, /^stripe\tStripe$/m);
  assert.match(providers.stdout, /^standard-webhooks\t/m);
  const events = await runCli(["complete", "--", "trigger", "stripe", "invoice.pai"], { cwd: tmp.path });
  assert.deepEqual(events.stdout.trim().split("\n").map((l) => l.split("\t")[0]), ["invoice.paid"]);
  const github = await runCli(["complete", "--", "trigger", "github", "pull_request.op"], { cwd: tmp.path });
  assert.match(github.stdout, /^pull_request\.opened/m);
});

Deno.test("a Discord endpoint added by a config reload trusts the trigger key too", async () => {
  await using tmp = await withTmpDir();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, endpoints: [{ name: "a", path: "/a", method: "POST", provider: "github" }] };\n`,
  );
  await using dev = await startDev(tmp.path);
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, endpoints: [{ name: "d", path: "/d", method: "POST", provider: "discord" }] };\n`,
  );
  const deadline = Date.now() + 15_000;
  while (!/Config reloaded/.test(dev.stderr()) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
  }
  await new Promise((r) => setTimeout(r, 300)); // the key is read after the reload is announced
  const sent = await runCli(["trigger", "discord", "MODAL_SUBMIT"], { cwd: tmp.path });
  assert.equal(sent.code, 0, sent.stderr);
  const last = (await readEvents(tmp.path)).at(-1)!;
  assert.equal((last.verdict as { status: string }).status, "valid");
});

Deno.test("endpoints named github and stripe without a provider field: each trigger goes to the one named after its provider", async () => {
  await using tmp = await withTmpDir();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default {
  port: 0,
  endpoints: [
    { name: "github", path: "/github", method: "POST", secret: "gh_s" },
    { name: "Stripe", path: "/stripe", method: "POST", secret: "whsec_s" },
  ],
};
`,
  );
  await using _dev = await startDev(tmp.path);
  const stripe = await runCli(["trigger", "stripe", "invoice.paid"], { cwd: tmp.path });
  assert.equal(stripe.code, 0, stripe.stderr);
  assert.match(stripe.stdout + stripe.stderr, /\/stripe/);
  const github = await runCli(["trigger", "github", "push"], { cwd: tmp.path });
  assert.equal(github.code, 0, github.stderr);
  const events = await readEvents(tmp.path);
  assert.deepEqual(events.map((e) => [e.endpoint, (e.verdict as { status: string }).status]), [
    ["Stripe", "valid"],
    ["github", "valid"],
  ]);
});

Deno.test("trigger --to dev's URL of an endpoint with a secret (no provider declared) signs with that secret", async () => {
  await using tmp = await withTmpDir();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, endpoints: [{ name: "stripe2", path: "/stripe2", method: "POST", secret: "whsec_two" }] };\n`,
  );
  await using dev = await startDev(tmp.path);
  const r = await runCli(["trigger", "stripe", "invoice.paid", "--to", `${dev.url}/stripe2`], {
    cwd: tmp.path,
  });
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /sending unsigned/);
  const [event] = await readEvents(tmp.path) as { verdict?: { status: string } }[];
  assert.equal(event?.verdict?.status, "valid", JSON.stringify(event?.verdict));
});

Deno.test("trigger standard-webhooks --retries: retry #1 waits Svix's 5 s (compressed), not 0; the note says so", async () => {
  await using tmp = await withTmpDir();
  await using server = startRawServer(() => 500);
  const r = await runCli(
    [
      "trigger",
      "standard-webhooks",
      "invoice.paid",
      "--retries",
      "1",
      "--to",
      `${server.url}/sw`,
      "--secret",
      "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    ],
    { cwd: tmp.path },
  );
  assert.equal(server.requests.length, 2, r.stderr);
  // 5 s compressed is log2(1 + 5/60) s = 115 ms: the retry cannot arrive sooner (it came after ~5 ms).
  const gap = server.requests[1]!.at - server.requests[0]!.at;
  assert.ok(gap >= 100, `retry #1 came ${gap} ms after the first attempt`);
  assert.match(
    r.stderr,
    /Retries: Svix's schedule: the first attempt at once, then retries after 5 s, 5 min/,
  );
});

Deno.test("trigger --signature-url is refused (exit 2) for a provider whose signature covers no URL, kept for Twilio", async () => {
  await using tmp = await withTmpDir();
  await using server = startRawServer();
  const to = ["--to", `${server.url}/in`, "--secret", "s", "--signature-url", "https://example.com/hook"];
  for (const [provider, event] of [["github", "push"], ["stripe", "invoice.paid"], ["slack", "message"]]) {
    const r = await runCli(["trigger", provider!, event!, ...to], { cwd: tmp.path });
    assert.equal(r.code, 2, `${provider}: ${r.stderr}`);
    assert.match(r.stderr, /--signature-url sets the URL a signature covers, and .* signs no URL: drop it/);
  }
  assert.equal(server.requests.length, 0, "nothing sent");
  const twilio = await runCli(["trigger", "twilio", "queued", ...to], { cwd: tmp.path });
  assert.equal(twilio.code, 0, twilio.stderr);
  assert.equal(server.requests.length, 1);
});

Deno.test("trigger --to URL --endpoint of another provider: the warning says what is true (no dev checks it)", async () => {
  await using tmp = await withTmpDir();
  await using server = startRawServer();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, endpoints: [
  { name: "github", path: "/gh", method: "POST", provider: "github", secret: "ghs" },
] };
`,
  );
  const r = await runCli(
    ["trigger", "stripe", "invoice.paid", "--to", `${server.url}/app`, "--endpoint", "github"],
    { cwd: tmp.path },
  );
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /will check this/);
  assert.match(
    r.stderr,
    /warning: endpoint "github" is a github endpoint, not a Stripe one: this Stripe delivery to http:\/\/127\.0\.0\.1:\d+\/app is signed with its secret\./,
  );
  assert.equal(server.requests.length, 1);
});

Deno.test("a fault into a dev that cannot judge it (no secret) is not 'as it should be': exit 1, and says why", async () => {
  await using tmp = await withTmpDir();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, endpoints: [{ name: "stripe", path: "/stripe", method: "POST", provider: "stripe" }] };\n`,
  );
  await using _dev = await startDev(tmp.path);
  const stale = await runCli(["trigger", "stripe", "invoice.paid", "--stale", "--secret", "whsec_x"], {
    cwd: tmp.path,
  });
  assert.equal(stale.code, 1, stale.stdout + stale.stderr);
  assert.doesNotMatch(stale.stdout, /as it should be/);
  assert.match(
    stale.stdout,
    /dev's verdict: no-secret: dev could not judge the signature, so the fault proves nothing; give the endpoint its secret in the config/,
  );
});

Deno.test("trigger github push sends a branch push with commits (not a tag push), which @octokit/webhooks verifies and parses", async () => {
  await using tmp = await withTmpDir();
  await using server = startRawServer();
  const r = await runCli(["trigger", "github", "push", "--to", `${server.url}/gh`, "--secret", "gh_push"], {
    cwd: tmp.path,
  });
  assert.equal(r.code, 0, r.stderr);
  const [got] = server.requests;
  assert.ok(got !== undefined, "one request arrived");
  const header = (name: string) => got.headers.find(([k]) => k.toLowerCase() === name)?.[1] ?? "";
  const text = new TextDecoder().decode(got.body);
  const webhooks = new Webhooks({ secret: "gh_push" });
  let parsed:
    | { ref: string; after: string; commits: { id: string }[]; head_commit: { id: string } | null }
    | undefined;
  webhooks.on("push", ({ payload }) => void (parsed = payload));
  await webhooks.verifyAndReceive({
    id: header("x-github-delivery"),
    name: header("x-github-event") as "push",
    signature: header("x-hub-signature-256"),
    payload: text,
  });
  assert.ok(parsed !== undefined, "@octokit/webhooks took it as a push");
  assert.match(parsed.ref, /^refs\/heads\//);
  assert.ok(parsed.commits.length > 0, "it has commits");
  assert.equal(parsed.head_commit?.id, parsed.after);
  assert.equal(parsed.commits.at(-1)?.id, parsed.head_commit?.id);
});

Deno.test("trigger into dev with a --secret that is not the endpoint's: the line says dev found it invalid, as mcp's does", async () => {
  await using tmp = await withTmpDir();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, endpoints: [{ name: "shopify", path: "/shopify", method: "POST", provider: "shopify", secret: "right" }] };\n`,
  );
  await using _dev = await startDev(tmp.path);
  const wrong = await runCli(["trigger", "shopify", "orders/create", "--secret", "wrong"], { cwd: tmp.path });
  const id = (await readEvents(tmp.path)).at(-1)!.id;
  assert.match(
    wrong.stdout,
    new RegExp(`! 200 in \\d+ ms \\(dev's verdict: invalid: hooktap inspect ${id} gives the reason\\)`),
  );
  const json = await runCli(["trigger", "shopify", "orders/create", "--secret", "wrong", "--json"], {
    cwd: tmp.path,
  });
  assert.equal(JSON.parse(json.stdout).devVerdict, "invalid");
  // The endpoint's own secret: nothing to say.
  const right = await runCli(["trigger", "shopify", "orders/create"], { cwd: tmp.path });
  assert.equal(right.code, 0, right.stderr);
  assert.doesNotMatch(right.stdout, /verdict/);
});

Deno.test("trigger --to dev's own URL with --bad-signature: dev's verdict judges it (refused as meant), not 'accepted'", async () => {
  await using tmp = await withTmpDir();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, endpoints: [{ name: "slack", path: "/slack", method: "POST", provider: "slack", secret: "s3" }] };\n`,
  );
  await using dev = await startDev(tmp.path);
  const url = `${dev.url.replace("127.0.0.1", "localhost")}/slack`;
  const bad = await runCli(["trigger", "slack", "app_mention", "--to", url, "--bad-signature"], {
    cwd: tmp.path,
  });
  assert.equal(bad.code, 0, bad.stdout + bad.stderr);
  assert.match(bad.stdout, /200 in \d+ ms \(dev's verdict: invalid, as it should be\)/);
  assert.doesNotMatch(bad.stdout, /should have been refused/);
  // dev recorded it as the fault it is (trigger told it over its control socket).
  assert.deepEqual((await readEvents(tmp.path)).at(-1)!.trigger, {
    event: "app_mention",
    fault: "bad-signature",
    attempt: 0,
  });
});

Deno.test({
  name:
    "trigger into dev relaying to an app whose JSON answer has its own id and verdict: the app's verdict " +
    "is not taken for dev's",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using tmp = await withTmpDir();
    const app = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
      await req.arrayBuffer();
      return Response.json({ ok: true, id: "order_1", verdict: "rejected" });
    });
    try {
      await writeFile(
        tmp.path,
        "hooktap.config.ts",
        `export default { port: 0, endpoints: [{ name: "shopify", path: "/shopify", method: "POST", ` +
          `provider: "shopify", secret: "right", forward: { to: "http://127.0.0.1:${app.addr.port}/in", ` +
          `mode: "relay" } }] };\n`,
      );
      await using _dev = await startDev(tmp.path);
      const sent = await runCli(["trigger", "shopify", "orders/create"], { cwd: tmp.path });
      assert.equal(sent.code, 0, sent.stdout + sent.stderr);
      const stored = (await readEvents(tmp.path)).at(-1)! as { verdict?: { status?: string } };
      assert.equal(stored.verdict?.status, "valid");
      assert.doesNotMatch(sent.stdout, /verdict/, "the relayed answer is the app's, not dev's");
    } finally {
      await app.shutdown();
    }
  },
});

Deno.test("trigger --to with a user name and password in the URL is refused (they were dropped and printed)", async () => {
  await using tmp = await withTmpDir();
  const r = await runCli([
    "trigger",
    "github",
    "push",
    "--to",
    "http://me:hunter2@127.0.0.1:9/hook",
    "--secret",
    "s",
  ], {
    cwd: tmp.path,
  });
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /--to holds a user name or password, which hooktap does not send/);
  assert.match(r.stderr, /--to http:\/\/127\.0\.0\.1:9\/hook /);
  assert.match(r.stderr, /-H "Authorization: Basic/);
  assert.doesNotMatch(r.stdout + r.stderr, /hunter2/, "the password is never printed");
});

Deno.test("trigger twilio --to an app that checks its public URL: the 401 says which URL was signed and --signature-url", async () => {
  await using tmp = await withTmpDir();
  const token = "twilio-auth-token";
  const publicUrl = "https://abc.ngrok.app/sms";
  // The app checks with Twilio's own library against the URL Twilio was given, as Twilio advises behind a proxy.
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (request) => {
    const params = Object.fromEntries(new URLSearchParams(await request.text()));
    const ok = twilio.validateRequest(
      token,
      request.headers.get("x-twilio-signature") ?? "",
      publicUrl,
      params,
    );
    return new Response(ok ? "ok" : "bad signature", { status: ok ? 200 : 401 });
  });
  await using _ = { [Symbol.asyncDispose]: () => server.shutdown() };
  const to = `http://127.0.0.1:${server.addr.port}/sms`;
  const refused = await runCli(["trigger", "twilio", "delivered", "--to", to, "--secret", token], {
    cwd: tmp.path,
  });
  assert.equal(refused.code, 1, refused.stdout + refused.stderr);
  assert.ok(
    refused.stdout.includes(`Twilio signs the URL: this was signed for ${to}; if your app checks another`),
    refused.stdout,
  );
  assert.match(refused.stdout, /--signature-url URL/);
  // The hint, followed.
  const sent = await runCli(
    ["trigger", "twilio", "delivered", "--to", to, "--secret", token, "--signature-url", publicUrl],
    { cwd: tmp.path },
  );
  assert.equal(sent.code, 0, sent.stdout + sent.stderr);
  assert.doesNotMatch(sent.stdout, /signs the URL/);
});
