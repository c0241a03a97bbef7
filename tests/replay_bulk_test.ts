import assert from "node:assert/strict";
import { cliArgs, LEAST_PRIVILEGE, readEvents, runCli, withTmpDir } from "./_helpers.ts";
import Stripe from "stripe";
import { captureEvents } from "./_capture.ts";

async function stored(dir: string, n: number): Promise<string[]> {
  return await captureEvents(
    dir,
    Array.from({ length: n }, (_, i) => ({
      path: i % 3 === 0 ? "/github" : "/webhook",
      headers: [["content-type", "application/json"]] as [string, string][],
      body: JSON.stringify({ i }),
    })),
  );
}

Deno.test("`hooktap replay --endpoint NAME --to URL` sends every match in arrival order and sums up", async () => {
  await using tmp = await withTmpDir();
  const ids = await stored(tmp.path, 12);
  const got: string[] = [];
  await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const body = await req.text();
    got.push(body);
    return new Response(null, { status: JSON.parse(body).i === 7 ? 500 : 200 });
  });
  const to = `http://127.0.0.1:${server.addr.port}/in`;
  const r = await runCli(["replay", "--endpoint", "default", "--to", to, "--rate", "200/s"], {
    cwd: tmp.path,
  });
  const events = await readEvents(tmp.path);
  const want = events.filter((e) => e.endpoint === "default").map((e) => e.body);
  assert.deepEqual(got, want);
  assert.equal(r.code, 1); // one answered 500
  assert.match(r.stderr, /Sent 8 of 8: 7 answered 2xx, 1 failed\./);
  assert.match(r.stderr, /: 500 /);
  assert.equal(ids.length, 12);
  // Every send is recorded as a replay delivery, in order; a second run numbers its sends after the first's.
  const deliveries = async () =>
    (await Deno.readTextFile(`${tmp.path}/.hooktap/deliveries.jsonl`)).trim().split("\n").map((l) =>
      JSON.parse(l)
    );
  const first = await deliveries();
  const sentIds = events.filter((e) => e.endpoint === "default").map((e) => e.id);
  assert.deepEqual(first.map((d) => [d.event, d.source, d.attempt]), sentIds.map((id) => [id, "replay", 1]));
  assert.equal(first.filter((d) => d.outcome === "failed").length, 1);
  // v2 records: the target by name (derived from the URL) and the URL sent to.
  assert.equal(
    first.every((d) => d.url === to && d.target === `127.0.0.1:${server.addr.port}/in` && d.v === 2),
    true,
  );
  const again = await runCli(["replay", "--endpoint", "default", "--to", to], { cwd: tmp.path });
  assert.equal(again.code, 1);
  const second = (await deliveries()).slice(first.length);
  assert.deepEqual(second.map((d) => [d.event, d.attempt]), sentIds.map((id) => [id, 2]));
  const none = await runCli(["replay", "--to", to], { cwd: tmp.path });
  assert.equal(none.code, 2);
  assert.match(none.stderr, /Give an event id, or filters/);
  const badRate = await runCli(["replay", "-e", "default", "--to", to, "--rate", "fast"], { cwd: tmp.path });
  assert.equal(badRate.code, 2);
});

Deno.test("Ctrl-C stops a bulk replay after the send in flight, prints the summary, exits 130", async () => {
  await using tmp = await withTmpDir();
  await stored(tmp.path, 30);
  let received = 0;
  let answered = 0;
  let firstIn: () => void;
  const started = new Promise<void>((r) => (firstIn = r));
  await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    await req.text();
    received++;
    if (received === 3) firstIn();
    await new Promise((r) => setTimeout(r, 150)); // slow: the interrupt lands mid-send
    answered++;
    return new Response("ok");
  });
  const child = new Deno.Command(Deno.execPath(), {
    args: cliArgs(LEAST_PRIVILEGE, [
      "replay",
      "--since",
      "1h",
      "--to",
      `http://127.0.0.1:${server.addr.port}/`,
    ]),
    cwd: tmp.path,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  await started;
  child.kill("SIGINT");
  const out = await child.output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 130, stderr);
  const m = stderr.match(/Stopped \(Ctrl-C\)\. Sent (\d+) of 30: (\d+) answered 2xx, 0 failed\./);
  assert.ok(m, stderr);
  // The send in flight finished (answered, counted); nothing was sent after it.
  assert.equal(Number(m[1]), received);
  assert.equal(answered, received);
  assert.ok(received < 30);
});

const STRIPE_SECRET = "whsec_bulk_replay_test";

/** Config: a Stripe endpoint with its secret and a GitHub one, both forwarding to `to` (no retries). */
const stripeConfig = (to: string) =>
  `export default {
  port: 0,
  endpoints: [
    { name: "stripe", path: "/stripe", method: "POST", provider: "stripe", secret: "${STRIPE_SECRET}", forward: { to: "${to}/stripe", retry: false } },
    { name: "github", path: "/github", method: "POST", forward: { to: "${to}/github", retry: false } },
  ],
};
`;

/** An app that verifies Stripe signatures with the \`stripe\` library: 200 when accepted, 400 otherwise. */
function stripeApp() {
  const got: string[] = [];
  const stripe = new Stripe("sk_test_x");
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const body = await req.text();
    got.push(new URL(req.url).pathname);
    try {
      await stripe.webhooks.constructEventAsync(
        body,
        req.headers.get("stripe-signature") ?? "",
        STRIPE_SECRET,
      );
      return new Response("ok");
    } catch (error) {
      return new Response(`bad signature: ${(error as Error).message.slice(0, 40)}`, { status: 400 });
    }
  });
  return { url: `http://127.0.0.1:${server.addr.port}`, got, [Symbol.asyncDispose]: () => server.shutdown() };
}

async function staleStripe(dir: string, config: string): Promise<string[]> {
  const body = '{"id":"evt_1","type":"invoice.paid"}';
  const header = await new Stripe("sk_test_x").webhooks.generateTestHeaderStringAsync({
    payload: body,
    secret: STRIPE_SECRET,
    timestamp: Math.floor(Date.now() / 1000) - 3600,
  });
  return await captureEvents(dir, [
    { path: "/stripe", headers: [["Content-Type", "application/json"], ["Stripe-Signature", header]], body },
    { path: "/github", headers: [["X-GitHub-Event", "push"]], body: "{}" },
  ], config);
}

Deno.test("bulk `replay --resign` signs stale events afresh, to the endpoint's forward target when --to is left out", async () => {
  await using tmp = await withTmpDir();
  await using app = stripeApp();
  await staleStripe(tmp.path, stripeConfig(app.url));
  app.got.length = 0;
  const stale = await runCli(["replay", "--endpoint", "stripe"], { cwd: tmp.path });
  assert.equal(stale.code, 1, stale.stderr);
  assert.match(stale.stderr, /Answers: 1 × 400\./);
  assert.match(
    stale.stderr,
    /First failure, evt_\S+ → 127\.0\.0\.1:\d+\/stripe: 400 Bad Request: bad signature/,
  );
  assert.match(stale.stderr, /stale signature: add --resign/);
  const fresh = await runCli(["replay", "--endpoint", "stripe", "--resign"], { cwd: tmp.path });
  assert.equal(fresh.code, 0, fresh.stderr);
  assert.match(fresh.stderr, /Sent 1 of 1: 1 answered 2xx, 0 failed\. Answers: 1 × 200\./);
  assert.deepEqual(app.got, ["/stripe", "/stripe"]);
  // -H and -X reach bulk sends too.
  const put = await runCli(["replay", "--endpoint", "github", "-X", "PUT", "--json"], { cwd: tmp.path });
  assert.equal(JSON.parse(put.stdout).method, "PUT");
  // An option a way of sending cannot honour is refused.
  const rate = await runCli(["replay", "evt_x", "--rate", "5"], { cwd: tmp.path });
  assert.equal(rate.code, 2);
  const filterWithId = await runCli(["replay", "evt_x", "--endpoint", "stripe"], { cwd: tmp.path });
  assert.equal(filterWithId.code, 2);
});

Deno.test("`replay --undelivered` honours --endpoint and --resign, and its summary reports the app's real answers", async () => {
  await using tmp = await withTmpDir();
  const dead = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const deadUrl = `http://127.0.0.1:${dead.addr.port}`;
  dead.close();
  await staleStripe(tmp.path, stripeConfig(deadUrl)); // both deliveries fail: nothing listens
  await using app = stripeApp();
  const to = `${app.url}/stripe`;
  const plain = await runCli(["replay", "--undelivered", "--endpoint", "stripe", "--to", to], {
    cwd: tmp.path,
  });
  assert.equal(plain.code, 1);
  assert.match(plain.stderr, /Answers: 1 × 400\./);
  assert.doesNotMatch(plain.stderr, /run this again once the app answers/);
  assert.match(plain.stderr, /hooktap replay --undelivered --endpoint stripe --to \S+ --resign/);
  const signed = await runCli(["replay", "--undelivered", "--endpoint", "stripe", "--to", to, "--resign"], {
    cwd: tmp.path,
  });
  assert.equal(signed.code, 0, signed.stderr);
  assert.deepEqual(app.got, ["/stripe", "/stripe"]); // never the GitHub event
  const none = await runCli(["replay", "--undelivered", "--endpoint", "stripe", "--to", to], {
    cwd: tmp.path,
  });
  assert.match(none.stderr, /No undelivered events match/);
});

Deno.test("`replay ID` without --to or a forward target says how to set one (exit 2)", async () => {
  await using tmp = await withTmpDir();
  const [id] = await captureEvents(tmp.path, [{ path: "/webhook", body: "x" }]);
  const r = await runCli(["replay", id!], { cwd: tmp.path });
  assert.equal(r.code, 2, r.stderr);
  assert.match(
    r.stderr,
    /Endpoint "default" has no forward target\. Give --to URL .*forward: "http:\/\/localhost:3000\/webhook"/,
  );
});

Deno.test("replay and export --endpoint with a name no endpoint has: did you mean, non-zero exit, nothing sent or written", async () => {
  await using tmp = await withTmpDir();
  await stored(tmp.path, 3);
  const replay = await runCli([
    "replay",
    "--endpoint",
    "defualt",
    "--since",
    "1h",
    "--to",
    "http://127.0.0.1:9/",
  ], {
    cwd: tmp.path,
  });
  assert.equal(replay.code, 2, replay.stderr);
  assert.match(replay.stderr, /no endpoint named "defualt": did you mean "default"\?/);
  const undelivered = await runCli(["replay", "--undelivered", "--endpoint", "defualt"], { cwd: tmp.path });
  assert.equal(undelivered.code, 2, undelivered.stderr);
  assert.match(undelivered.stderr, /did you mean "default"\?/);
  const exported = await runCli(["export", "--endpoint", "defualt", "-o", "out.jsonl"], {
    cwd: tmp.path,
    permissions: ["--allow-read=.", "--allow-write=."],
  });
  assert.equal(exported.code, 2, exported.stderr);
  assert.match(exported.stderr, /did you mean "default"\?/);
  assert.equal(await Deno.stat(`${tmp.path}/out.jsonl`).catch(() => null), null, "no empty export written");
});
