/**
 * Forwarding rules through the real CLI with real apps on loopback: several
 * targets per endpoint, each taking the events its `when` selects, each
 * with its own queue and retries, resumed after a restart, and following
 * config edits while `dev` runs.
 */
import assert from "node:assert/strict";
import { freePort, startApp, until } from "./_app.ts";
import { deliveries, readEvents, runCli, startDev, withTmpDir, writeFile } from "./_helpers.ts";

const enc = new TextEncoder();

function config(forward: string): string {
  return `export default { port: 0, endpoints: [{ name: "gh", path: "/gh", method: "POST", provider: "github", forward: ${forward} }] };\n`;
}

/** A GitHub-style delivery: `X-GitHub-Event` and a JSON body with its action. */
async function post(port: number, event: string, body: string, path = "/gh"): Promise<Response> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: "POST",
    headers: { "X-GitHub-Event": event, "content-type": "application/json" },
    body,
  });
  await response.body?.cancel();
  return response;
}

Deno.test("two targets, one taking issues (by prefix) and one push, get exactly their events byte-exact; the rest is not forwarded", async () => {
  await using tmp = await withTmpDir();
  await using issuesApp = startApp(0, () => ({ status: 204 }));
  await using pushApp = startApp(0, () => ({ status: 204 }));
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    config(`[
      { name: "issues", to: "http://127.0.0.1:${issuesApp.port}/issues", when: { type: "issues" } },
      { to: "http://127.0.0.1:${pushApp.port}/push", when: { type: ["push"], filterMethod: "POST" } },
    ]`),
  );
  await using dev = await startDev(tmp.path);
  await until(() => /Forwarding( "[^"]*")? \(queue\)/.test(dev.stderr()), "the forwarding banner");
  assert.match(
    dev.stderr(),
    new RegExp(`to http://127.0.0.1:${issuesApp.port}/issues as issues when type issues`),
  );
  const sent = [
    ["issues", '{"action":"opened","n":1}'],
    ["push", '{"ref":"refs/heads/main","n":2}'],
    ["pull_request", '{"action":"opened","n":3}'],
    ["issues", '{ "action" : "closed",\n "n": 4 }'],
    ["issue_comment", '{"action":"created","n":5}'], // "issue" is not a prefix of it up to a dot
  ] as const;
  for (const [event, body] of sent) assert.equal((await post(dev.port, event, body)).status, 200);
  await until(() => issuesApp.requests.length >= 2 && pushApp.requests.length >= 1, "deliveries");
  await until(async () => (await deliveries(tmp.path)).length >= 3, "deliveries recorded");
  // The inspector's event API: every target's outcome, or none taken.
  const [, ui, token] = dev.stderr().match(/Inspect: (http:\/\/\S+?)\/\?token=(\w+)\s/) ?? [];
  assert.ok(ui && token, dev.stderr());
  const stored = await readEvents(tmp.path);
  const detail = async (id: unknown) =>
    await (await fetch(`${ui}/api/events/${id}`, { headers: { "x-hooktap-token": token } })).json();
  assert.deepEqual((await detail(stored[0]!.id)).targets, [
    { name: "issues", outcome: "delivered", status: 204, attempts: 1 },
  ]);
  const none = await detail(stored[2]!.id);
  assert.deepEqual([none.targets, none.delivery], [[], "none"]);
  await dev.stop();
  assert.equal(dev.stdout().match(/not forwarded \(no rule matched\)/g)?.length, 2, dev.stdout());
  assert.match(dev.stdout(), /\(issues\) \[evt_/);
  const text = (r: { body: Uint8Array }) => new TextDecoder().decode(r.body);
  assert.deepEqual(issuesApp.requests.map(text), [sent[0][1], sent[3][1]]);
  assert.deepEqual(pushApp.requests.map(text), [sent[1][1]]);
  assert.deepEqual(issuesApp.requests[0]!.body, enc.encode(sent[0][1]));
  const events = await readEvents(tmp.path);
  const marks = events.map((e) => (e.forward as { targets?: string[] }).targets);
  assert.deepEqual(marks, [["issues"], [`127.0.0.1:${pushApp.port}/push`], [], ["issues"], []]);
  assert.ok(events.every((e) => e.v === 2));
  const byTarget = (await deliveries(tmp.path)).map((d) => `${d.event} ${d.target} ${d.outcome}`).sort();
  assert.deepEqual(
    byTarget,
    [
      `${events[0]!.id} issues delivered`,
      `${events[1]!.id} 127.0.0.1:${pushApp.port}/push delivered`,
      `${events[3]!.id} issues delivered`,
    ].sort(),
  );
  // Every view says what happened to the events no rule took.
  const logs = await runCli(["logs"], { cwd: tmp.path });
  assert.equal(logs.code, 0, logs.stderr);
  assert.match(logs.stdout, /not forwarded \(no rule matched\)/);
  const json = await runCli(["logs", "--json"], { cwd: tmp.path });
  const lines = json.stdout.trim().split("\n").map((l) => JSON.parse(l));
  const pr = lines.find((l) => l.id === events[2]!.id);
  assert.deepEqual(pr.delivery.targets, []);
  const first = lines.find((l) => l.id === events[0]!.id);
  assert.deepEqual(first.delivery.targets, [{
    name: "issues",
    outcome: "delivered",
    status: 204,
    attempts: 1,
  }]);
  const inspect = await runCli(["inspect", events[2]!.id as string], { cwd: tmp.path });
  assert.match(inspect.stdout, /not forwarded \(no rule matched\)/);
  const inspect0 = await runCli(["inspect", events[0]!.id as string], { cwd: tmp.path });
  assert.match(inspect0.stdout, /issues: delivered/);
});

Deno.test("fan-out where one target is down retries only that one, and resumes it after a restart", async () => {
  await using tmp = await withTmpDir();
  await using up = startApp(0, () => ({ status: 200 }));
  const downPort = freePort();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    config(`[
      { name: "up", to: "http://127.0.0.1:${up.port}/a" },
      { name: "down", to: "http://127.0.0.1:${downPort}/b", retry: { attempts: 50, backoff: [200] } },
    ]`),
  );
  {
    await using dev = await startDev(tmp.path);
    for (const n of [1, 2]) assert.equal((await post(dev.port, "push", `{"n":${n}}`)).status, 200);
    await until(async () => {
      const d = await deliveries(tmp.path);
      return d.filter((x) => x.target === "down").length >= 1;
    }, "an attempt to the down target");
    // Nothing listens there: its events wait without spending attempts (a connect check, not a send).
    await new Promise((r) => setTimeout(r, 2500));
    const tried = (await deliveries(tmp.path)).filter((x) => x.target === "down");
    assert.ok(tried.length <= 2, `at most one refused attempt per event, got ${tried.length}`);
    assert.ok(tried.every((d) => d.outcome === "retrying" && /nothing listens/.test(String(d.error))));
    await dev.stop();
  }
  const before = await deliveries(tmp.path);
  assert.equal(before.filter((d) => d.target === "up").length, 2, "the up target got each event once");
  assert.ok(before.filter((d) => d.target === "up").every((d) => d.outcome === "delivered"));
  assert.equal(up.requests.length, 2);
  await using down = startApp(downPort, () => ({ status: 200 }));
  await using dev = await startDev(tmp.path);
  await until(() => down.requests.length >= 2, "the down target's events after restart");
  await until(
    async () =>
      (await deliveries(tmp.path)).filter((d) => d.target === "down" && d.outcome === "delivered").length >=
        2,
    "recorded",
  );
  await dev.stop();
  assert.match(
    dev.stderr(),
    /2 deliveries of events stored but not delivered when hooktap last stopped go out now/,
  );
  assert.equal(up.requests.length, 2, "the target that had them was not sent them again");
  assert.deepEqual(down.requests.map((r) => new TextDecoder().decode(r.body)).sort(), ['{"n":1}', '{"n":2}']);
});

Deno.test("a reload that adds a target, changes a rule and removes a target while events flow loses nothing", async () => {
  await using tmp = await withTmpDir();
  await using a = startApp(0, () => ({ status: 200 }));
  await using b = startApp(0, () => ({ status: 200 }));
  await using gone = startApp(0, () => ({ status: 200 }));
  const file = await writeFile(
    tmp.path,
    "hooktap.config.ts",
    config(`[
      { name: "a", to: "http://127.0.0.1:${a.port}/a", when: { type: "push" } },
      { name: "gone", to: "http://127.0.0.1:${gone.port}/gone" },
    ]`),
  );
  await using dev = await startDev(tmp.path);
  let sending = true;
  let n = 0;
  const flow = (async () => {
    while (sending) {
      n++;
      const response = await post(dev.port, n % 2 === 0 ? "push" : "issues", `{"action":"opened","n":${n}}`);
      assert.equal(response.status, 200);
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  await until(() => n >= 10, "events before the reload");
  await Deno.writeTextFile(
    file,
    config(`[
      { name: "a", to: "http://127.0.0.1:${a.port}/a", when: { type: ["push", "issues"] } },
      { name: "b", to: "http://127.0.0.1:${b.port}/b", when: { type: "issues" } },
    ]`),
  );
  await until(() => dev.stderr().includes("Forwarding reloaded"), "the reload");
  const atReload = n;
  await until(() => n >= atReload + 10, "events after the reload");
  sending = false;
  await flow;
  const events = await readEvents(tmp.path);
  assert.equal(events.length, n, "every event stored");
  await until(async () => {
    const delivered = new Set(
      (await deliveries(tmp.path)).filter((d) => d.outcome === "delivered").map((d) =>
        `${d.event} ${d.target}`
      ),
    );
    return events.every((e) =>
      (e.forward as { targets: string[] }).targets.every((t) => delivered.has(`${e.id} ${t}`))
    );
  }, "every marked (event, target) delivered");
  await dev.stop();
  assert.match(dev.stderr(), /\+ forward target gh b/);
  assert.match(dev.stderr(), /~ forward target gh a/);
  assert.match(dev.stderr(), /- forward target gh gone/);
  const marks = events.map((e) => (e.forward as { targets: string[] }).targets.join(","));
  assert.ok(marks.includes("gone") || marks.includes("a,gone"), "before: gone took events");
  const after = events.slice(-5);
  for (const e of after) {
    const type = (e.type as string).split(".")[0];
    assert.equal((e.forward as { targets: string[] }).targets.join(","), type === "issues" ? "a,b" : "a");
  }
  const received = (app: { requests: { body: Uint8Array }[] }) =>
    app.requests.map((r) => JSON.parse(new TextDecoder().decode(r.body)).n as number);
  const countOf = (name: string) =>
    events.filter((e) => (e.forward as { targets: string[] }).targets.includes(name));
  assert.equal(new Set(received(a)).size, countOf("a").length);
  assert.equal(new Set(received(b)).size, countOf("b").length);
  assert.equal(new Set(received(gone)).size, countOf("gone").length);
});

Deno.test("bad rules are refused at load with the field path, did-you-mean and why", async () => {
  await using tmp = await withTmpDir();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    config(`[
      { to: "http://127.0.0.1:3000/a", mode: "relay", when: { tpye: "push" } },
      { to: "http://127.0.0.1:3000/a", mode: "relay", when: { provider: "stripe" } },
    ]`),
  );
  const result = await runCli(["dev"], { cwd: tmp.path });
  assert.equal(result.code, 78);
  assert.match(
    result.stderr,
    /endpoints\[0\]\.forward\[0\]\.when\.tpye is not a when field: did you mean "type"\?/,
  );
  assert.match(result.stderr, /endpoints\[0\]\.forward\[1\]\.when\.provider "stripe" can never match/);
  const usage = await runCli(["dev", "--forward-events", "push"], { cwd: tmp.path });
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /--forward-events chooses the events --forward-to sends/);
  const mode = await runCli(["dev", "--forward-mode", "relay"], { cwd: tmp.path });
  assert.equal(mode.code, 2);
  assert.match(mode.stderr, /--forward-mode sets how --forward-to sends: give both/);
});

Deno.test("dev --forward-to URL --forward-events push replaces the config's targets for this run, and says so", async () => {
  await using tmp = await withTmpDir();
  await using configured = startApp(0, () => ({ status: 200 }));
  await using flag = startApp(0, () => ({ status: 200 }));
  await writeFile(tmp.path, "hooktap.config.ts", config(`"http://127.0.0.1:${configured.port}/x"`));
  await using dev = await startDev(tmp.path, [
    "--forward-to",
    `http://127.0.0.1:${flag.port}/y`,
    "--forward-events",
    "push,pull_request",
  ]);
  await until(() => /Forwarding( "[^"]*")? \(queue\)/.test(dev.stderr()), "the forwarding banner");
  assert.match(dev.stderr(), /--forward-to replaces the 1 forward target of hooktap.config.ts for this run/);
  for (const event of ["push", "issues", "pull_request"]) {
    assert.equal((await post(dev.port, event, `{"action":"opened","e":"${event}"}`)).status, 200);
  }
  await until(() => flag.requests.length >= 2, "deliveries");
  await until(async () => (await deliveries(tmp.path)).length >= 2, "recorded");
  await dev.stop();
  assert.deepEqual(
    flag.requests.map((r) => JSON.parse(new TextDecoder().decode(r.body)).e),
    ["push", "pull_request"],
  );
  assert.equal(configured.requests.length, 0);
});

Deno.test("dev --config FILE --forward-to URL names FILE as the config whose targets it replaces", async () => {
  await using tmp = await withTmpDir();
  await using app = startApp(0, () => ({ status: 200 }));
  await writeFile(tmp.path, "alt.config.ts", config(`"http://127.0.0.1:${app.port}/x"`));
  await using dev = await startDev(tmp.path, [
    "--config",
    "alt.config.ts",
    "--forward-to",
    `http://127.0.0.1:${app.port}/y`,
  ]);
  await until(() => /Forwarding( "[^"]*")? \(queue\)/.test(dev.stderr()), "the forwarding banner");
  assert.match(dev.stderr(), /--forward-to replaces the 1 forward target of alt\.config\.ts for this run/);
  assert.doesNotMatch(dev.stderr(), /hooktap\.config\.ts/);
});

Deno.test("a reload that removes a target with events waiting keeps them undelivered and reports them, now and at the next start", async () => {
  await using tmp = await withTmpDir();
  await using a = startApp(0, () => ({ status: 200 }));
  const downPort = freePort();
  const both = config(`[
    { name: "a", to: "http://127.0.0.1:${a.port}/a" },
    { name: "b", to: "http://127.0.0.1:${downPort}/b", retry: { attempts: 50, backoff: [300] } },
  ]`);
  const file = await writeFile(tmp.path, "hooktap.config.ts", both);
  {
    await using dev = await startDev(tmp.path);
    for (const n of [1, 2, 3]) assert.equal((await post(dev.port, "push", `{"n":${n}}`)).status, 200);
    await until(
      async () => (await deliveries(tmp.path)).filter((d) => d.target === "b").length >= 1,
      "b waiting",
    );
    await Deno.writeTextFile(file, config(`[{ name: "a", to: "http://127.0.0.1:${a.port}/a" }]`));
    await until(() => dev.stderr().includes("- forward target gh b"), "the reload");
    assert.match(dev.stderr(), /- forward target gh b: [1-3] queued events? (was|were) kept undelivered/);
    await dev.stop();
  }
  assert.equal(a.requests.length, 3, "the kept target got each event once");
  await using dev = await startDev(tmp.path);
  await until(() => dev.stderr().includes("does not forward to"), "the report at start");
  await dev.stop();
  assert.match(
    dev.stderr(),
    /3 events of endpoint gh waited for target b, which this run does not forward to; they are kept: hooktap replay --undelivered --endpoint gh --target b --to URL sends them/,
  );
  assert.doesNotMatch(dev.stderr(), /go out now/);
  assert.equal(a.requests.length, 3, "nothing was sent to the wrong place");
  // The command the report gives sends them, counted for the target that missed them.
  await using b = startApp(0, () => ({ status: 200 }));
  const replay = await runCli(
    ["replay", "--undelivered", "--endpoint", "gh", "--target", "b", "--to", `http://127.0.0.1:${b.port}/b`],
    { cwd: tmp.path },
  );
  assert.equal(replay.code, 0, replay.stderr);
  assert.equal(b.requests.length, 3);
  assert.equal(a.requests.length, 3);
  const replayed = (await deliveries(tmp.path)).filter((d) => d.source === "replay");
  assert.deepEqual(replayed.map((d) => `${d.target} ${d.outcome}`), [
    "b delivered",
    "b delivered",
    "b delivered",
  ]);
  const again = await runCli([
    "replay",
    "--undelivered",
    "--target",
    "b",
    "--to",
    `http://127.0.0.1:${b.port}/b`,
  ], {
    cwd: tmp.path,
  });
  assert.match(again.stderr, /No undelivered events/);
});

Deno.test("after a reload, the 404 hint lists the running config's endpoints, not those of start-up", async () => {
  await using tmp = await withTmpDir();
  const file = await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, endpoints: [{ name: "gh", path: "/gh", method: "POST" }] };\n`,
  );
  await using dev = await startDev(tmp.path);
  await Deno.writeTextFile(
    file,
    `export default { port: 0, endpoints: [{ name: "gh", path: "/gh", method: "POST" }, { name: "new", path: "/new", method: "POST" }] };\n`,
  );
  await until(() => dev.stderr().includes("Config reloaded"), "the reload");
  assert.equal((await post(dev.port, "push", "{}", "/nowhere")).status, 404);
  await until(() => dev.stdout().includes("/nowhere"), "the 404 line");
  await dev.stop();
  assert.match(dev.stdout(), /no endpoint here; configured: POST \/gh, POST \/new/);
});

Deno.test("relay with rules: the relay target's answer when its rule takes the event, hooktap's own answer when not; queue targets get theirs", async () => {
  await using tmp = await withTmpDir();
  await using relayApp = startApp(0, () => ({ status: 202, body: "from the relay app" }));
  await using queueApp = startApp(0, () => ({ status: 200 }));
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    config(`[
      { name: "relay", to: "http://127.0.0.1:${relayApp.port}/r", mode: "relay", when: { type: "push" } },
      { name: "all", to: "http://127.0.0.1:${queueApp.port}/q" },
    ]`),
  );
  await using dev = await startDev(tmp.path);
  const push = await fetch(`${dev.url}/gh`, {
    method: "POST",
    headers: { "X-GitHub-Event": "push" },
    body: "{}",
  });
  assert.deepEqual([push.status, await push.text()], [202, "from the relay app"]);
  const issues = await fetch(`${dev.url}/gh`, {
    method: "POST",
    headers: { "X-GitHub-Event": "issues" },
    body: '{"action":"opened"}',
  });
  assert.equal(issues.status, 200);
  assert.match(await issues.text(), /^\{"ok":true,"id":"evt_/);
  await until(() => queueApp.requests.length >= 2, "the queue target gets both");
  await dev.stop();
  assert.equal(relayApp.requests.length, 1);
});

Deno.test("a reload that points a target at hooktap's own receiver is refused; the running targets stay", async () => {
  await using tmp = await withTmpDir();
  await using app = startApp(0, () => ({ status: 200 }));
  const file = await writeFile(tmp.path, "hooktap.config.ts", config(`"http://127.0.0.1:${app.port}/a"`));
  await using dev = await startDev(tmp.path);
  await Deno.writeTextFile(
    file,
    config(`["http://127.0.0.1:${app.port}/a", "http://127.0.0.1:${dev.port}/gh"]`),
  );
  await until(() => dev.stderr().includes("keeping the running forward targets"), "the refusal");
  assert.match(dev.stderr(), /hooktap's own receiver/);
  assert.equal((await post(dev.port, "push", "{}")).status, 200);
  await until(() => app.requests.length >= 1, "the running target still delivers");
  await dev.stop();
  assert.equal(app.requests.length, 1);
});

/** Three ports in a row free on 127.0.0.1 now (outside the ephemeral range): a receiver's, +1 and +2. */
function threeFreePorts(): number {
  for (let tries = 0; tries < 100; tries++) {
    const base = 20_000 + Math.floor(Math.random() * 12_000);
    const held: Deno.Listener[] = [];
    try {
      for (let i = 0; i < 3; i++) held.push(Deno.listen({ hostname: "127.0.0.1", port: base + i }));
      return base;
    } catch {
      /* taken: try another */
    } finally {
      for (const l of held) l.close();
    }
  }
  throw new Error("no three free ports in a row");
}

Deno.test("the inspector never takes a forward target's port: its default moves on, saying why, and the app started after dev gets the events", async () => {
  await using tmp = await withTmpDir();
  const port = threeFreePorts();
  // The app's port is the inspector's default (the receiver's + 1), and the app is not up yet.
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    config(`"http://127.0.0.1:${port + 1}/hook"`).replace("port: 0", `port: ${port}`),
  );
  await using dev = await startDev(tmp.path, [], { configPort: true });
  await until(() => /Press Ctrl-C/.test(dev.stderr()), "the banner");
  assert.match(
    dev.stderr(),
    new RegExp(
      `Inspect: http://127\\.0\\.0\\.1:${port + 2}/\\?token=\\w+ .*port ${port + 1} is your app's ` +
        `\\(forward target http://127\\.0\\.0\\.1:${port + 1}/hook\\), so the inspector is on ${port + 2}`,
    ),
  );
  await using app = startApp(port + 1, () => ({ status: 200 })); // before this fix: address in use
  assert.equal((await post(dev.port, "push", "{}")).status, 200);
  await until(() => app.requests.length >= 1, "the app started after dev gets the event");
  assert.equal(await dev.stop(), 0);
  assert.doesNotMatch(dev.stderr(), /405|gave up/);
});

Deno.test("--ui-port at a forward target's port is refused at start, naming both ways out", async () => {
  await using tmp = await withTmpDir();
  const appPort = freePort();
  await writeFile(tmp.path, "hooktap.config.ts", config(`"http://localhost:${appPort}/hook"`));
  const run = await runCli(["dev", "--port", "0", "--ui-port", String(appPort)], {
    cwd: tmp.path,
    timeoutMs: 30_000,
  });
  assert.equal(run.code, 2, run.stderr);
  assert.match(
    run.stderr,
    new RegExp(
      `forward target http://localhost:${appPort}/hook and hooktap's inspector both use port ${appPort}`,
    ),
  );
  assert.match(run.stderr, /--ui-port \(or `ui: \{ port \}` in hooktap\.config\.ts\)/);
});

Deno.test("a reload that points a target at hooktap's own inspector is refused; the running targets stay", async () => {
  await using tmp = await withTmpDir();
  await using app = startApp(0, () => ({ status: 200 }));
  const file = await writeFile(tmp.path, "hooktap.config.ts", config(`"http://127.0.0.1:${app.port}/a"`));
  await using dev = await startDev(tmp.path);
  const [, uiPort] = dev.stderr().match(/Inspect: http:\/\/127\.0\.0\.1:(\d+)\//) ?? [];
  assert.ok(uiPort, dev.stderr());
  await Deno.writeTextFile(
    file,
    config(`["http://127.0.0.1:${app.port}/a", "http://localhost:${uiPort}/b"]`),
  );
  await until(() => dev.stderr().includes("keeping the running forward targets"), "the refusal");
  assert.match(dev.stderr(), new RegExp(`hooktap's inspector both use port ${uiPort}`));
  assert.equal((await post(dev.port, "push", "{}")).status, 200);
  await until(() => app.requests.length >= 1, "the running target still delivers");
  await dev.stop();
  assert.equal(app.requests.length, 1);
});
