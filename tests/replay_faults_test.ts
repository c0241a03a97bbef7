/**
 * What hooktap says of events `hooktap trigger --bad-signature` sent on
 * purpose, through the real CLI (dev, trigger, replay, inspect) and an app
 * that verifies with Stripe's own library: the bulk summary counts the ones
 * `--resign` refuses as not sent and names `--resign-invalid`; dev's start
 * report suggests only commands that work for them; `inspect` and `replay`
 * say the fault made the signature invalid, not a wrong secret.
 */
import assert from "node:assert/strict";
import Stripe from "stripe";
import { type DevProcess, runCli, startDev, withTmpDir, writeFile } from "./_helpers.ts";
import { until } from "./_app.ts";

const SECRET = "whsec_faults_test";

/** An app that verifies Stripe signatures with the `stripe` library; `fail` makes it answer 500 to all. */
function stripeApp() {
  const stripe = new Stripe("sk_test_x");
  const state = { fail: false, got: 0 };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const body = await req.text();
    state.got++;
    if (state.fail) return new Response("down for maintenance", { status: 500 });
    try {
      await stripe.webhooks.constructEventAsync(body, req.headers.get("stripe-signature") ?? "", SECRET);
      return new Response("ok");
    } catch {
      return new Response("bad signature", { status: 400 });
    }
  });
  return { port: server.addr.port, state, [Symbol.asyncDispose]: () => server.shutdown() };
}

/**
 * In `dir`: 2 Stripe events signed right that the app failed (500, no retry), then 3 sent with
 * `trigger --bad-signature` that it refused (400): all 5 given up. Returns the invalid ones' ids.
 */
async function giveUpFive(dir: string, app: ReturnType<typeof stripeApp>): Promise<string[]> {
  await writeFile(
    dir,
    "hooktap.config.ts",
    `export default { port: 0, ui: false, endpoints: [{ name: "stripe", path: "/stripe", method: "POST", ` +
      `provider: "stripe", secret: "${SECRET}", forward: { to: "http://127.0.0.1:${app.port}/stripe", ` +
      `retry: false } }] };\n`,
  );
  await using dev = await startDev(dir);
  app.state.fail = true;
  for (let i = 0; i < 2; i++) {
    const sent = await runCli(["trigger", "stripe", "invoice.paid"], { cwd: dir });
    assert.equal(sent.code, 0, sent.stderr);
  }
  await until(() => (dev.stdout().match(/gave up/g) ?? []).length === 2, "the 2 failed deliveries");
  app.state.fail = false;
  for (let i = 0; i < 3; i++) {
    const sent = await runCli(["trigger", "stripe", "invoice.paid", "--bad-signature"], { cwd: dir });
    assert.equal(sent.code, 0, sent.stderr);
  }
  await until(() => (dev.stdout().match(/gave up/g) ?? []).length === 5, "the 3 refused deliveries");
  assert.equal(await dev.stop(), 0);
  const logs = await runCli(["logs", "--json", "--verdict", "invalid"], { cwd: dir });
  return logs.stdout.trim().split("\n").map((l) => JSON.parse(l).id);
}

/** The start report of a fresh `dev` in `dir` (its stderr once the banner is out), then stops it. */
async function startReport(dir: string): Promise<string> {
  const dev: DevProcess = await startDev(dir);
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(await dev.stop(), 0);
  return dev.stderr();
}

Deno.test("`replay --undelivered --resign` counts the events it refused (invalid at receipt) as not sent, names --resign-invalid, exits 1", async () => {
  await using tmp = await withTmpDir();
  await using app = stripeApp();
  const invalid = await giveUpFive(tmp.path, app);
  assert.equal(invalid.length, 3);
  const before = app.state.got;
  const r = await runCli(["replay", "--undelivered", "--resign"], { cwd: tmp.path });
  assert.equal(r.code, 1, "not everything was sent");
  assert.equal(app.state.got - before, 2, "the app saw only the 2 re-signed events");
  assert.match(
    r.stderr,
    /Sent 2 of 5: 2 answered 2xx, 0 failed, 3 not sent \(refused before sending: your app never saw them\)\. Answers: 2 × 200, 3 × not sent\./,
  );
  assert.doesNotMatch(r.stderr, /sent as received/, "none of them was sent");
  assert.match(
    r.stderr,
    /3 of them were not sent: their signatures were invalid when hooktap received them \(made invalid on purpose by `trigger --bad-signature`\)/,
  );
  // The command it names sends them, re-signed: the app accepts all three, and nothing is left undelivered.
  const command = r.stderr.match(/re-signed \(which a real sender never would\): (hooktap [^\n]+)\n/)![1]!;
  assert.equal(command, "hooktap replay --undelivered --endpoint stripe --resign-invalid");
  const forced = await runCli(command.split(" ").slice(1), { cwd: tmp.path });
  assert.equal(forced.code, 0, forced.stderr);
  assert.match(forced.stderr, /Sent 3 of 3: 3 answered 2xx, 0 failed\./);
  const left = await runCli(["replay", "--undelivered"], { cwd: tmp.path });
  assert.match(left.stderr, /No undelivered events/);
});

Deno.test("dev's start report suggests for given-up events only commands that work for them, and stops once they are delivered", async () => {
  await using tmp = await withTmpDir();
  await using app = stripeApp();
  await giveUpFive(tmp.path, app);
  const report = await startReport(tmp.path);
  const target = `127.0.0.1:${app.port}/stripe`;
  // The 2 signed right: re-signed (stale by now), without the invalid ones --resign would refuse.
  const valid = report.match(
    /2 events of endpoint stripe failed every delivery attempt to \S+ earlier: (hooktap [^\n]+?) sends them again\.\n/,
  );
  assert.ok(valid, report);
  assert.equal(
    valid[1],
    `hooktap replay --undelivered --endpoint stripe --target ${target} --resign --verdict valid`,
  );
  // The 3 invalid: why (the fault, on purpose), and no --resign.
  assert.match(
    report,
    /3 events of endpoint stripe failed every delivery attempt to \S+ earlier: their signatures were invalid when hooktap received them \(made invalid on purpose by `trigger --bad-signature`\)/,
  );
  assert.doesNotMatch(report.replace(valid[0], ""), /--resign(?!-invalid)/);
  const first = await runCli(valid[1].split(" ").slice(1), { cwd: tmp.path });
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stderr, /Sent 2 of 2: 2 answered 2xx/);
  // Next start: only the invalid ones, whose --resign-invalid command works.
  const next = await startReport(tmp.path);
  assert.doesNotMatch(next, /2 events of endpoint stripe/);
  const forced = next.match(/; (hooktap replay [^\n]+?--resign-invalid) signs them anew/)![1]!;
  assert.equal(forced, `hooktap replay --undelivered --endpoint stripe --target ${target} --resign-invalid`);
  const done = await runCli(forced.split(" ").slice(1), { cwd: tmp.path });
  assert.equal(done.code, 0, done.stderr);
  assert.doesNotMatch(await startReport(tmp.path), /failed every delivery attempt/);
});

Deno.test("inspect and replay --resign of a `trigger --bad-signature` event name the fault, not a wrong secret", async () => {
  await using tmp = await withTmpDir();
  await using app = stripeApp();
  const [id] = await giveUpFive(tmp.path, app);
  const shown = await runCli(["inspect", id!], { cwd: tmp.path });
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(
    shown.stdout,
    /why +hooktap trigger made this signature wrong on purpose with --bad-signature, not with the secret: invalid, as the fault intends; the endpoint's secret is not at fault/,
  );
  assert.doesNotMatch(shown.stdout, /secret is wrong|not an API key/);
  const replayed = await runCli(["replay", id!, "--resign"], { cwd: tmp.path });
  assert.equal(replayed.code, 1);
  assert.match(replayed.stderr, /Refusing to re-sign .*made this signature wrong on purpose/);
  assert.doesNotMatch(replayed.stderr, /secret is wrong|not an API key/);
});
