/**
 * A replay while the app is down, through the real CLI: nothing listens, so
 * nothing is sent and nothing changes. The events still wait (`logs`
 * agrees), the summary says so and names a command that sends every one of
 * them, and the next `dev` sends them. What `dev` says at Ctrl-C names the
 * command that really resumes them (`--forward-to` too), in plain grammar.
 * @module
 */
import assert from "node:assert/strict";
import { startApp, until, unusedPort } from "./_app.ts";
import { deliveries, runCli, startDev, withTmpDir, writeFile } from "./_helpers.ts";

interface Delivery {
  outcome: string;
  attempts: number;
  targets: { name: string; outcome: string; attempts: number; replays?: number; waiting?: true }[];
}

/** `logs --json`: each event's delivery, by id. */
async function deliveryOf(cwd: string): Promise<Map<string, Delivery>> {
  const logs = await runCli(["logs", "--json"], { cwd });
  assert.equal(logs.code, 0, logs.stderr);
  return new Map(
    logs.stdout.trim().split("\n").map((l) => JSON.parse(l)).map((e) => [e.id as string, e.delivery]),
  );
}

/** Posts `body` to `url` and returns the stored event's id. */
async function post(url: string, body: string, headers: Record<string, string> = {}): Promise<string> {
  const r = await fetch(url, { method: "POST", body, headers });
  assert.equal(r.status, 200);
  return (await r.json()).id;
}

Deno.test("replay --undelivered while the app is down: nothing sent, nothing changed, the next dev sends them", async () => {
  await using tmp = await withTmpDir();
  const appPort = unusedPort(); // down until the end: no other test's listener can be given it
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, ui: false, endpoints: [\n` +
      `  { name: "github", path: "/github", method: "POST", provider: "github", secret: "s3cret", ` +
      `forward: "http://127.0.0.1:${appPort}/gh" },\n` +
      `  { name: "sw", path: "/sw", method: "POST", forward: "http://127.0.0.1:${appPort}/sw" },\n] };\n`,
  );
  let ids: string[];
  {
    const dev = await startDev(tmp.path);
    // One stored with an invalid signature (an app would rightly refuse it), one plain.
    ids = [
      await post(`${dev.url}/github`, '{"n":0}', {
        "x-github-event": "push",
        "x-hub-signature-256": `sha256=${"0".repeat(64)}`,
      }),
      await post(`${dev.url}/sw`, '{"n":1}'),
    ];
    await until(async () => (await deliveries(tmp.path)).length >= 2, "both tries found nothing listening");
    assert.equal(await dev.stop(), 0);
    assert.match(
      dev.stderr(),
      /2 deliveries were still waiting for your app: they are kept, and the next hooktap dev sends them in order for each target \(or, once your app listens, hooktap replay --undelivered sends them, with any event that gave up earlier\)\./,
    );
  }
  const stored = await runCli(["logs", "--json", "--verdict", "invalid"], { cwd: tmp.path });
  assert.equal(JSON.parse(stored.stdout).id, ids[0], "the github event is stored invalid");
  const replay = await runCli(["replay", "--undelivered"], { cwd: tmp.path });
  assert.equal(replay.code, 1, "nothing was delivered: a failure");
  assert.match(
    replay.stderr,
    new RegExp(
      `Sent 0 of 2: 0 answered 2xx, 0 failed, 2 not sent \\(nothing listens on http://127\\.0\\.0\\.1:${appPort}`,
    ),
  );
  assert.doesNotMatch(replay.stderr, /refusing|Answers:|First failure/, "no app answered anything");
  // The command names neither endpoint: pasted, it sends both.
  assert.match(
    replay.stderr,
    /The 2 events are still undelivered, as before\. Start the app, then send them: (.*)\n/,
  );
  const hint = replay.stderr.match(/Start the app, then send them: (.*)\n/)![1];
  assert.equal(hint, "hooktap replay --undelivered");
  // One replay by id too, while still down.
  const one = await runCli(["replay", ids[1]!], { cwd: tmp.path });
  assert.equal(one.code, 1);
  assert.match(one.stderr, /nothing listens on 127\.0\.0\.1:\d+ \(is your app running\?\)/);
  // Every reader: still waiting, no attempt, no replay.
  const before = await deliveryOf(tmp.path);
  for (const id of ids) {
    const d = before.get(id)!;
    assert.equal(d.outcome, "pending", `${id}: ${JSON.stringify(d)}`);
    assert.equal(d.attempts, 0);
    assert.deepEqual(d.targets.map((t) => [t.outcome, t.attempts, t.replays, t.waiting]), [[
      "pending",
      0,
      undefined,
      true,
    ]]);
  }
  const text = await runCli(["logs"], { cwd: tmp.path });
  assert.doesNotMatch(text.stdout, /err|replay/, text.stdout);
  const inspect = await runCli(["inspect", ids[1]!], { cwd: tmp.path });
  assert.doesNotMatch(inspect.stdout + inspect.stderr, /failed/, inspect.stdout);
  // The app listens; the next dev sends both, each once.
  await using app = startApp(appPort, () => ({ status: 200 }));
  await using dev = await startDev(tmp.path);
  await until(() => app.requests.length >= 2, "both delivered by the next dev");
  assert.deepEqual(app.requests.map((r) => r.target).sort(), ["/gh", "/sw"]);
  assert.match(
    dev.stderr(),
    /2 deliveries of events stored but not delivered when hooktap last stopped go out now, in the order received for each target\./,
  );
  await until(async () => {
    const after = await deliveryOf(tmp.path);
    return ids.every((id) => after.get(id)?.outcome === "delivered");
  }, "logs says both were delivered");
  assert.equal(await dev.stop(), 0);
  assert.equal(app.requests.length, 2);
});

Deno.test("--forward-to: Ctrl-C names the dev command that resumes the waiting event, and it does", async () => {
  await using tmp = await withTmpDir();
  const appPort = unusedPort();
  const down = `http://127.0.0.1:${appPort}/down`;
  await writeFile(
    tmp.path,
    "alt.config.ts",
    `export default { port: 0, ui: false, endpoints: [{ name: "sw", path: "/sw", method: "POST" }] };\n`,
  );
  let id: string;
  let command: string;
  {
    const dev = await startDev(tmp.path, ["--config", "alt.config.ts", "--forward-to", down]);
    id = await post(`${dev.url}/sw`, '{"n":0}');
    await until(async () => (await deliveries(tmp.path)).length >= 1, "the try found nothing listening");
    assert.equal(await dev.stop(), 0);
    const said = dev.stderr().match(
      /1 delivery was still waiting for your app: it is kept, and the next (hooktap dev .*) sends it \(or, once your app listens, hooktap replay --undelivered --config alt\.config\.ts sends it, with any event that gave up earlier\)\./,
    );
    assert.ok(said, dev.stderr());
    command = said[1]!;
    assert.equal(command, `hooktap dev --config alt.config.ts --forward-to ${down}`);
  }
  // Pasted while the app is still down: not sent, and it changes nothing.
  const replay = await runCli(["replay", "--undelivered", "--config", "alt.config.ts"], { cwd: tmp.path });
  assert.equal(replay.code, 1);
  assert.match(replay.stderr, /Sent 0 of 1: .*1 not sent \(nothing listens on/);
  assert.match(replay.stderr, /The event is still undelivered, as before\. Start the app, then send it: /);
  assert.equal((await deliveryOf(tmp.path)).get(id)!.outcome, "pending");
  // The named command, with the app up, sends it.
  await using app = startApp(appPort, () => ({ status: 200 }));
  const words = command.split(" ").slice(2); // after "hooktap dev"
  await using dev = await startDev(tmp.path, words);
  await until(() => app.requests.length >= 1, "the waiting event delivered");
  assert.equal(app.requests[0]!.target, "/down");
  assert.match(
    dev.stderr(),
    /1 delivery of an event stored but not delivered when hooktap last stopped goes out now\.\n/,
  );
  assert.equal(await dev.stop(), 0);
});

Deno.test("the app comes back: events that waited for several targets go out in order for each target", async () => {
  await using tmp = await withTmpDir();
  const appPort = unusedPort();
  const names = ["gh", "stripe", "sw"];
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, ui: false, endpoints: [\n` +
      names.map((n) =>
        `  { name: "${n}", path: "/${n}", method: "POST", forward: "http://127.0.0.1:${appPort}/${n}" },\n`
      ).join("") + `] };\n`,
  );
  await using dev = await startDev(tmp.path);
  for (const n of names) await post(`${dev.url}/${n}`, `{"n":"${n}"}`);
  await until(async () => (await deliveries(tmp.path)).length >= 3, "three tries found nothing listening");
  await using app = startApp(appPort, () => ({ status: 200 }));
  await until(() => app.requests.length >= 3, "all three delivered");
  await until(() => /answers again/.test(dev.stderr()), "the line saying the app is back");
  assert.match(
    dev.stderr(),
    new RegExp(
      `127\\.0\\.0\\.1:${appPort} answers again; the 3 events that waited go out now, in order for each target\\.`,
    ),
  );
  assert.equal(await dev.stop(), 0);
});

Deno.test("replay --undelivered while a dev runs here leaves it the events it still has: no delivery twice", async () => {
  await using tmp = await withTmpDir();
  const appPort = unusedPort();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, ui: false, endpoints: [` +
      `{ name: "gh", path: "/gh", method: "POST", forward: "http://127.0.0.1:${appPort}/gh" }] };\n`,
  );
  await using dev = await startDev(tmp.path);
  const id = await post(`${dev.url}/gh`, '{"n":1}');
  await until(async () => (await deliveries(tmp.path)).length >= 1, "dev's try found nothing listening");
  // The audit pasted the suggested replay here; once the app was up it got the event from dev and the replay.
  const replay = await runCli(["replay", "--undelivered"], { cwd: tmp.path });
  assert.equal(replay.code, 0, replay.stderr);
  assert.match(
    replay.stderr,
    /1 undelivered event is still pending while a hooktap dev runs here \(pid \d+\).*nothing was sent\. To send it yourself, stop that dev first/s,
  );
  assert.ok((await deliveries(tmp.path)).every((d) => d.source !== "replay"), "the replay sent nothing");
  // `replay ID` is an explicit request: sent (here to nothing listening), with a warning that dev sends it too.
  const one = await runCli(["replay", id], { cwd: tmp.path });
  assert.notEqual(one.code, 0, "nothing listens");
  assert.match(
    one.stderr,
    /warning: the hooktap dev running here \(pid \d+\) still has this event waiting for its target: it sends it too/,
  );
  // With --to URL the replay goes elsewhere, a delivery of its own: sent while dev runs.
  await using other = startApp(0, () => ({ status: 202 }));
  const elsewhere = await runCli(["replay", "--undelivered", "--to", `http://127.0.0.1:${other.port}/x`], {
    cwd: tmp.path,
  });
  assert.equal(elsewhere.code, 0, elsewhere.stderr);
  assert.equal(other.requests.length, 1);
  await using app = startApp(appPort, () => ({ status: 200 }));
  await until(() => app.requests.length >= 1, "dev delivers it once the app listens");
  await new Promise((r) => setTimeout(r, 1500)); // time for a second delivery, were there one
  assert.equal(app.requests.length, 1, "delivered once");
  assert.equal((await deliveryOf(tmp.path)).get(id)?.outcome, "delivered");
});
