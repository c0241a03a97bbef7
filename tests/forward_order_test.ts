/**
 * Issue 33.2 and 33.3 through the real CLI: events that wait (the app down,
 * a restart) reach the app exactly once and in the order hooktap received
 * them, more of them than a lane keeps in memory (read back from the store);
 * an app that is down spends no attempt; every forwarding line dev prints is
 * true, and the "gave up" hint is a command that works.
 */
import assert from "node:assert/strict";
import { freePort, startApp, until } from "./_app.ts";
import { deliveries, runCli, startDev, withTmpDir, writeFile } from "./_helpers.ts";
import { createChannel, send, startHub } from "./_hub.ts";

function config(forward: string): string {
  return `export default { port: 0, endpoints: [{ name: "gh", path: "/gh", method: "POST", forward: ${forward} }] };\n`;
}

/** Posts `n` events one after the other (arrival order = n order); returns their ids. */
async function postMany(url: string, from: number, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = from; i < from + n; i++) {
    const r = await fetch(`${url}/gh`, { method: "POST", body: JSON.stringify({ n: i }) });
    assert.equal(r.status, 200);
    ids.push((await r.json()).id);
  }
  return ids;
}

const numbers = (app: { requests: { body: Uint8Array }[] }) =>
  app.requests.map((r) => (JSON.parse(new TextDecoder().decode(r.body)) as { n: number }).n);

const COUNT = 150; // more than a lane keeps in memory (64): the rest is read back from events.jsonl

Deno.test("an app down for a while: every waiting event once, in arrival order, no attempt spent while down, and true lines", async () => {
  await using tmp = await withTmpDir();
  const appPort = freePort();
  await writeFile(tmp.path, "hooktap.config.ts", config(`"http://127.0.0.1:${appPort}/hook"`));
  await using dev = await startDev(tmp.path);
  const ids = await postMany(dev.url, 0, COUNT);
  await until(() => dev.stderr().includes(`nothing listens on 127.0.0.1:${appPort}`), "the app-down line");
  await new Promise((r) => setTimeout(r, 2500)); // the connect check runs; no attempt is made meanwhile
  const whileDown = await deliveries(tmp.path);
  assert.ok(whileDown.length <= 8, `at most one attempt per event in flight, got ${whileDown.length}`);
  assert.ok(whileDown.every((d) => d.outcome === "retrying" && d.retryAt === undefined));
  // One readable phrase: why, what happens, and that no attempt is spent.
  assert.match(
    dev.stdout(),
    new RegExp(
      ` [\\d.]+ ms — nothing listens on 127\\.0\\.0\\.1:${appPort}; it waits for the app to listen \\(no attempt spent\\)\\n`,
    ),
  );
  assert.doesNotMatch(dev.stdout(), /no attempt spent nothing listens/);
  assert.doesNotMatch(dev.stdout(), /attempt \d+ nothing listens/, "a try nothing listened to is no attempt");
  assert.doesNotMatch(dev.stdout(), /gave up/);
  // What waits reads as waiting in logs, not as an error.
  const waitingLogs = await runCli(["logs", "-n", String(COUNT)], { cwd: tmp.path });
  assert.match(waitingLogs.stdout, /→ waiting for the app/);
  assert.doesNotMatch(waitingLogs.stdout, /→ err/);
  await using app = startApp(appPort, () => ({ status: 200 }));
  await until(() => app.requests.length >= COUNT, `${COUNT} deliveries`, 60_000);
  await new Promise((r) => setTimeout(r, 500));
  assert.deepEqual(numbers(app), [...Array(COUNT).keys()], "once each, in the order received");
  // The app-back line says how many waited and go out: every one the app then gets.
  await until(
    () => /answers again; the \d+ events that waited go out now, in order/.test(dev.stderr()),
    "back",
  );
  const waiting = Number(dev.stderr().match(/the (\d+) events that waited/)![1]);
  assert.equal(waiting, app.requests.length, "the number that went out, counted at the app");
  assert.equal(waiting, COUNT);
  const records = await deliveries(tmp.path);
  const delivered = records.filter((d) => d.outcome === "delivered").map((d) => d.event);
  assert.deepEqual(delivered, ids);
  assert.ok(records.every((d) => d.outcome !== "failed"));
  // logs agrees: every event delivered.
  const logs = await runCli(["logs", "--json", "--limit", String(COUNT)], { cwd: tmp.path });
  const outcomes = logs.stdout.trim().split("\n").map((l) => JSON.parse(l).delivery.outcome);
  assert.deepEqual(new Set(outcomes), new Set(["delivered"]));
  assert.equal(await dev.stop(), 0);
});

Deno.test("a restart with events waiting: the next dev delivers them once each, in order, before newer ones", async () => {
  await using tmp = await withTmpDir();
  const appPort = freePort();
  await writeFile(tmp.path, "hooktap.config.ts", config(`"http://127.0.0.1:${appPort}/hook"`));
  {
    const dev = await startDev(tmp.path);
    await postMany(dev.url, 0, COUNT);
    await until(() => dev.stderr().includes("nothing listens"), "the app-down line");
    assert.equal(await dev.stop(), 0);
    assert.match(
      dev.stderr(),
      new RegExp(
        `${COUNT} deliveries were still waiting for your app: they are kept, and the next hooktap dev`,
      ),
    );
  }
  await using app = startApp(appPort, () => ({ status: 200 }));
  await using dev = await startDev(tmp.path);
  await until(() => /go out now, in the order received/.test(dev.stderr()), "the resume line");
  assert.match(dev.stderr(), new RegExp(`${COUNT} deliveries of events stored but not delivered`));
  await postMany(dev.url, COUNT, 10); // newer events wait behind the older ones
  await until(() => app.requests.length >= COUNT + 10, "every delivery", 60_000);
  await new Promise((r) => setTimeout(r, 500));
  const got = numbers(app);
  assert.deepEqual(got.slice(0, COUNT), [...Array(COUNT).keys()], "the waiting ones first, in order");
  // Live events after the catch-up start in arrival order with up to `concurrency` (8) in flight, so two of
  // them may reach the app in either order: each once, after the waiting ones.
  assert.deepEqual(got.slice(COUNT).sort((a, b) => a - b), [...Array(10).keys()].map((i) => COUNT + i));
  assert.equal(got.length, COUNT + 10);
  assert.equal(await dev.stop(), 0);
  // A third start finds nothing left to deliver.
  await using third = await startDev(tmp.path);
  await new Promise((r) => setTimeout(r, 1000));
  assert.doesNotMatch(third.stderr(), /go out now/);
  assert.equal(app.requests.length, COUNT + 10);
  assert.equal(await third.stop(), 0);
});

Deno.test("a policy that ends says 'gave up' with a command that works", async () => {
  await using tmp = await withTmpDir();
  let status = 500;
  await using app = startApp(0, () => ({ status }));
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    config(`{ to: "http://127.0.0.1:${app.port}/hook", retry: { attempts: 2, backoff: [100] } }`),
  );
  await using dev = await startDev(tmp.path);
  const [id] = await postMany(dev.url, 0, 1);
  await until(() => /gave up/.test(dev.stdout()), "the gave-up line");
  assert.equal(app.requests.length, 2, "the two attempts of the policy");
  assert.match(dev.stdout(), /attempt 1 retry in \d+ ms/);
  const hint = dev.stdout().match(/gave up: (hooktap [^\n]*?) sends it again/)![1]!;
  assert.equal(hint, `hooktap replay --undelivered --endpoint gh --target 127.0.0.1:${app.port}/hook`);
  status = 200;
  const result = await runCli(hint.split(" ").slice(1), { cwd: tmp.path });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(app.requests.length, 3);
  const logs = await runCli(["logs", "--json"], { cwd: tmp.path });
  const line = JSON.parse(logs.stdout.trim().split("\n").at(-1)!);
  assert.equal(line.id, id);
  assert.equal(line.delivery.outcome, "delivered");
  assert.equal(await dev.stop(), 0);
});

Deno.test("a hub catch-up reaches the app in the order the hub received the events", async () => {
  await using tmp = await withTmpDir();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, endpoints: [{ name: "gh", path: "/gh", method: "POST" }] };\n`,
  );
  await using hub = await startHub(tmp.path);
  const channel = await createChannel(tmp.path, hub.url);
  // dev is away: the channel keeps them.
  for (let i = 0; i < 40; i++) assert.equal(await send(`${channel.url}/gh`, JSON.stringify({ n: i })), 200);
  // The app fails event 3 once: a retry that must hold the line (the issue saw 1, 2, 3, 6, 7, 8, 4, ...).
  let failedOnce = false;
  const accepted: number[] = [];
  await using app = startApp(0, (req) => {
    const n = (JSON.parse(new TextDecoder().decode(req.body)) as { n: number }).n;
    if (n === 3 && !failedOnce) {
      failedOnce = true;
      return { status: 503, headers: [["Retry-After", "0"]] };
    }
    accepted.push(n);
    return { status: 204, delayMs: 5 };
  });
  await using dev = await startDev(tmp.path, [
    "--hub",
    channel.url,
    "--hub-token",
    channel.token,
    "--forward-to",
    `http://127.0.0.1:${app.port}/hook`,
  ]);
  await until(() => accepted.length >= 40, "the catch-up delivered", 30_000);
  await new Promise((r) => setTimeout(r, 300));
  assert.deepEqual(accepted, [...Array(40).keys()], "accepted once each, in the hub's order");
  assert.equal(app.requests.length, 41, "one retry");
  await dev.stop();
});

Deno.test("--skip-pending leaves the waiting events (the next start delivers them) and delivers new ones", async () => {
  await using tmp = await withTmpDir();
  const appPort = freePort();
  await writeFile(tmp.path, "hooktap.config.ts", config(`"http://127.0.0.1:${appPort}/hook"`));
  {
    const dev = await startDev(tmp.path);
    await postMany(dev.url, 0, 100);
    await until(() => dev.stderr().includes("nothing listens"), "the app-down line");
    assert.equal(await dev.stop(), 0);
  }
  await using app = startApp(appPort, () => ({ status: 200 }));
  {
    const dev = await startDev(tmp.path, ["--skip-pending"]);
    await until(() => dev.stderr().includes("--skip-pending)"), "the skip line");
    assert.match(
      dev.stderr(),
      /100 events stored but not delivered when hooktap last stopped \(--skip-pending\): hooktap replay --undelivered sends them/,
    );
    await postMany(dev.url, 100, 5);
    await until(() => app.requests.length >= 5, "the new events");
    await new Promise((r) => setTimeout(r, 1000));
    assert.deepEqual(numbers(app), [100, 101, 102, 103, 104], "only the new ones");
    assert.equal(await dev.stop(), 0);
  }
  await using dev = await startDev(tmp.path);
  await until(() => app.requests.length >= 105, "the ones left, at the next start", 30_000);
  await new Promise((r) => setTimeout(r, 1000));
  assert.deepEqual(numbers(app).slice(5), [...Array(100).keys()], "the ones left, once each, in order");
  assert.equal(await dev.stop(), 0);
});

Deno.test("a gave-up Stripe event's hint carries --resign (its signature is stale by then), and it works", async () => {
  await using tmp = await withTmpDir();
  let status = 500;
  await using app = startApp(0, () => ({ status }));
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, endpoints: [{ name: "stripe", path: "/stripe", method: "POST", provider: "stripe", ` +
      `secret: "whsec_cli", forward: { to: "http://127.0.0.1:${app.port}/app", retry: false } }] };\n`,
  );
  await using dev = await startDev(tmp.path);
  const sent = await runCli(["trigger", "stripe", "invoice.paid"], { cwd: tmp.path });
  assert.equal(sent.code, 0, sent.stderr);
  await until(() => /gave up/.test(dev.stdout()), "the gave-up line");
  const hint = dev.stdout().match(/gave up: (hooktap [^\n]*?) sends it again/)![1]!;
  assert.equal(
    hint,
    `hooktap replay --undelivered --endpoint stripe --target 127.0.0.1:${app.port}/app --resign`,
  );
  status = 200;
  const result = await runCli(hint.split(" ").slice(1), { cwd: tmp.path });
  assert.equal(result.code, 0, result.stdout + result.stderr);
  assert.equal(app.requests.length, 2);
  assert.equal(await dev.stop(), 0);
});

Deno.test("the gave-up hint of an event stored invalid has no --resign (replay would refuse it) and works as printed", async () => {
  await using tmp = await withTmpDir();
  let status = 500;
  await using app = startApp(0, () => ({ status }));
  // A secret and no provider: hooktap detects the sender per event; this one is GitHub's, badly signed.
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, endpoints: [{ name: "gh", path: "/gh", method: "POST", secret: "s3cret", ` +
      `forward: { to: "http://127.0.0.1:${app.port}/hook", retry: { attempts: 1 } } }] };\n`,
  );
  await using dev = await startDev(tmp.path);
  const r = await fetch(`${dev.url}/gh`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-github-event": "push",
      "x-github-delivery": crypto.randomUUID(),
      "x-hub-signature-256": `sha256=${"0".repeat(64)}`,
    },
    body: JSON.stringify({ ref: "refs/heads/main" }),
  });
  await r.arrayBuffer();
  await until(() => /gave up/.test(dev.stdout()), "the gave-up line");
  const logs = JSON.parse((await runCli(["logs", "--json"], { cwd: tmp.path })).stdout.trim());
  assert.equal(logs.verdict?.status, "invalid", "stored with the invalid verdict");
  const hint = dev.stdout().match(
    /gave up \(its signature was invalid when hooktap received it\): (hooktap [^\n]*?) sends it again as received/,
  )![1]!;
  assert.doesNotMatch(hint, /--resign/);
  status = 200;
  const result = await runCli(hint.split(" ").slice(1), { cwd: tmp.path });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(app.requests.length, 2);
  assert.equal(await dev.stop(), 0);
});
