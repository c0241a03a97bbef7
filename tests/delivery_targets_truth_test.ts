/**
 * One delivery state per (event, target) with several targets, through the real CLI, `hooktap mcp` (the
 * official SDK client) and a real app per target on loopback: mcp's `replay` sends to the target the
 * CLI's `replay` sends to, under that target's name (an undelivered replay to the target that missed the
 * event), and a replay warns of the running dev only when dev still holds the event for the target it goes
 * to. Found by the audit of audit-states: mcp's undelivered replay sent a given-up event to the endpoint's
 * first target (which had it already), answered "1 answered 2xx" and left the event failed; a replay to a
 * delivered target warned "the app may get it twice" because another target was waiting.
 */
import assert from "node:assert/strict";
import { startApp, until, unusedPort } from "./_app.ts";
import { cliArgs, runCli, startDev, withTmpDir, writeFile } from "./_helpers.ts";
import { connectMcp, MCP_PERMISSIONS } from "./_mcp_client.ts";

type Target = { name: string; outcome: string; attempts: number; replays?: number };
type Delivery = { outcome: string; targets: Target[]; others?: Target[] };

async function deliveryOf(cwd: string, id: string): Promise<Delivery> {
  const logs = await runCli(["logs", "--json"], { cwd });
  return logs.stdout.trim().split("\n").map((l) => JSON.parse(l)).find((e) => e.id === id).delivery;
}

function config(a: number, b: number): string {
  return `export default { port: 0, ui: false, endpoints: [{ name: "gh", path: "/gh", method: "POST", forward: [` +
    `{ name: "a", to: "http://127.0.0.1:${a}/a", retry: { attempts: 1 } }, ` +
    `{ name: "b", to: "http://127.0.0.1:${b}/b", retry: { attempts: 1 } }] }] };\n`;
}

Deno.test({
  name:
    "mcp replay sends an undelivered event to the target that missed it, a single one to its target by name",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using tmp = await withTmpDir();
    await using a = startApp(0, () => ({ status: 200 }));
    let bFails = true;
    await using b = startApp(0, () => ({ status: bFails ? 500 : 200 }));
    await writeFile(tmp.path, "hooktap.config.ts", config(a.port, b.port));
    let id: string;
    {
      await using dev = await startDev(tmp.path);
      const r = await fetch(`${dev.url}/gh`, { method: "POST", body: JSON.stringify({ n: 1 }) });
      id = (await r.json()).id;
      await until(() => /gave up/.test(dev.stdout()), "b gave up");
      await until(() => a.requests.length === 1, "a delivered");
      assert.equal(await dev.stop(), 0);
    }
    const before = await deliveryOf(tmp.path, id);
    assert.deepEqual(before.targets.map((t) => [t.name, t.outcome]), [["a", "delivered"], ["b", "failed"]]);
    bFails = false;
    await using mcp = await connectMcp(Deno.execPath(), cliArgs(MCP_PERMISSIONS, ["mcp"]), tmp.path);
    const bulk = await mcp.call("replay", { undelivered: true });
    assert.equal(bulk.isError, false, bulk.text);
    assert.deepEqual(bulk.structured?.results.map((r: { target: string }) => r.target), ["b"], bulk.text);
    assert.equal(a.requests.length, 1, "a had it: the undelivered replay does not send it there again");
    assert.equal(b.requests.length, 2);
    const after = await deliveryOf(tmp.path, id);
    assert.equal(after.outcome, "delivered", "the replay that answered 2xx delivered the event");
    assert.deepEqual(after.targets.map((t) => [t.name, t.outcome, t.replays]), [
      ["a", "delivered", undefined],
      ["b", "delivered", 1],
    ]);
    // search_events agrees: nothing is undelivered any more.
    const search = await mcp.call("search_events", { undelivered: true });
    assert.deepEqual(search.structured?.events, [], search.text);
    // A single replay goes where `hooktap replay ID` sends it (the first target dev forwarded it to), and
    // counts for that target, never as a send elsewhere.
    const one = await mcp.call("replay", { id });
    assert.equal(one.isError, false, one.text);
    assert.equal(one.structured?.results[0].target, "a");
    const cli = await runCli(["replay", id], { cwd: tmp.path });
    assert.equal(cli.code, 0, cli.stderr);
    assert.match(cli.stderr, /\(target a\)/);
    const last = await deliveryOf(tmp.path, id);
    assert.deepEqual(last.targets.map((t) => [t.name, t.outcome, t.replays]), [
      ["a", "delivered", 2],
      ["b", "delivered", 1],
    ]);
    assert.equal(last.others, undefined, "no send elsewhere: both went to target a");
  },
});

Deno.test({
  name:
    "a replay to a delivered target while dev holds the event for another target does not warn of a double send",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using tmp = await withTmpDir();
    await using a = startApp(0, () => ({ status: 200 }));
    await writeFile(tmp.path, "hooktap.config.ts", config(a.port, unusedPort()));
    await using dev = await startDev(tmp.path);
    const r = await fetch(`${dev.url}/gh`, { method: "POST", body: JSON.stringify({ n: 1 }) });
    const id = (await r.json()).id;
    await until(() => /waits for the app to listen/.test(dev.stdout()) && a.requests.length === 1, "b waits");
    const cli = await runCli(["replay", id], { cwd: tmp.path });
    assert.equal(cli.code, 0, cli.stderr);
    assert.match(cli.stderr, /\(target a\)/);
    assert.doesNotMatch(cli.stderr, /still has this event waiting/, "dev holds it for b, not for a");
    await using mcp = await connectMcp(Deno.execPath(), cliArgs(MCP_PERMISSIONS, ["mcp"]), tmp.path);
    const one = await mcp.call("replay", { id });
    assert.equal(one.isError, false, one.text);
    assert.equal(one.structured?.results[0].target, "a");
    assert.doesNotMatch(one.text, /still has this event waiting/);
    // The bulk replay of the undelivered leaves it to dev, which still waits to send it to b.
    const bulk = await mcp.call("replay", { undelivered: true });
    assert.deepEqual(bulk.structured?.held, [id], bulk.text);
    assert.equal(a.requests.length, 3);
    const d = await deliveryOf(tmp.path, id);
    assert.deepEqual(d.targets.map((t) => [t.name, t.outcome, t.attempts]), [["a", "delivered", 3], [
      "b",
      "pending",
      0,
    ]]);
  },
});

Deno.test({
  name: "a failed replay while dev retries the event leaves it retrying in every view, and dev's to send",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using tmp = await withTmpDir();
    let status = 500;
    await using app = startApp(0, () => ({ status }));
    await writeFile(
      tmp.path,
      "hooktap.config.ts",
      `export default { port: 0, endpoints: [{ name: "gh", path: "/gh", method: "POST", forward: ` +
        `{ to: "http://127.0.0.1:${app.port}/hook", retry: { attempts: 3, backoff: [8000] } } }] };\n`,
    );
    await using dev = await startDev(tmp.path);
    const r = await fetch(`${dev.url}/gh`, { method: "POST", body: JSON.stringify({ n: 1 }) });
    const id = (await r.json()).id;
    await until(() => /attempt 1 retry in/.test(dev.stdout()), "the first attempt failed, a retry due");
    const replay = await runCli(["replay", id], { cwd: tmp.path });
    assert.equal(replay.code, 1, "the app answered 500");
    assert.match(replay.stderr, /still has this event waiting/);
    // dev has not given up: every view says retrying, not failed.
    const d = await deliveryOf(tmp.path, id);
    assert.deepEqual([d.outcome, d.targets[0]!.attempts, d.targets[0]!.replays], ["retrying", 2, 1]);
    const text = await runCli(["logs"], { cwd: tmp.path, env: { COLUMNS: "250" } });
    assert.match(text.stdout, /→ 500 \(1 try, 1 replay\) …/, text.stdout);
    const inspect = await runCli(["inspect", id], { cwd: tmp.path });
    assert.match(
      inspect.stdout,
      /Forwarding\n {2}127\.0\.0\.1:\d+\/hook: retrying \(500, 1 attempt, 1 replay\)/,
    );
    // The inspector's API (its own fold of the records) agrees.
    const [, inspector, token] = dev.stderr().match(/Inspect: (http:\/\/127\.0\.0\.1:\d+\/)\?token=(\w+)/)!;
    const api =
      await (await fetch(`${inspector}api/events/${id}`, { headers: { "x-hooktap-token": token! } }))
        .json();
    assert.equal(api.delivery, "retrying");
    const list = await (await fetch(`${inspector}api/events`, { headers: { "x-hooktap-token": token! } }))
      .json();
    assert.equal(list.events[0].delivery, "retrying", "the list's fold");
    // replay --undelivered leaves it to dev (no double send), as mcp's does.
    const bulk = await runCli(["replay", "--undelivered"], { cwd: tmp.path });
    assert.equal(bulk.code, 0, bulk.stderr);
    assert.match(bulk.stderr, /1 undelivered event is still pending while a hooktap dev runs here/);
    await using mcp = await connectMcp(Deno.execPath(), cliArgs(MCP_PERMISSIONS, ["mcp"]), tmp.path);
    const search = await mcp.call("search_events", {});
    assert.equal(search.structured?.events[0].deliveries[0].state, "retrying", search.text);
    const tool = await mcp.call("replay", { undelivered: true });
    assert.deepEqual(tool.structured?.held, [id], tool.text);
    assert.equal(app.requests.length, 2, "dev's attempt and the one replay");
    status = 200;
    await until(() => /\[200\].*attempt 2/.test(dev.stdout()), "dev's retry delivered it");
    assert.equal((await deliveryOf(tmp.path, id)).outcome, "delivered");
  },
});

Deno.test("replay --undelivered of a given-up event to an app that is down never says the event waits", async () => {
  await using tmp = await withTmpDir();
  const port = unusedPort();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, ui: false, endpoints: [{ name: "gh", path: "/gh", method: "POST", forward: ` +
      `{ to: "http://127.0.0.1:${port}/hook", retry: { attempts: 1 } } }] };\n`,
  );
  let id: string;
  {
    await using app = startApp(port, () => ({ status: 500 }));
    await using dev = await startDev(tmp.path);
    const r = await fetch(`${dev.url}/gh`, { method: "POST", body: "{}" });
    id = (await r.json()).id;
    await until(() => /gave up/.test(dev.stdout()) && app.requests.length === 1, "dev gave up");
    assert.equal(await dev.stop(), 0);
  }
  const replay = await runCli(["replay", "--undelivered"], { cwd: tmp.path });
  assert.equal(replay.code, 1);
  assert.match(replay.stderr, /1 not sent \(nothing listens on/);
  assert.doesNotMatch(replay.stderr, /still waits/, "dev gave up on it: nothing waits to send it");
  assert.match(replay.stderr, /The event is still undelivered, as before\./);
  assert.equal((await deliveryOf(tmp.path, id)).outcome, "failed");
});

Deno.test("an event no rule took, replayed by hand: a send elsewhere, named as such, never 'replay --to'", async () => {
  await using tmp = await withTmpDir();
  await using a = startApp(0, () => ({ status: 200 }));
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, ui: false, endpoints: [{ name: "gh", path: "/gh", method: "POST", forward: [` +
      `{ name: "a", to: "http://127.0.0.1:${a.port}/a", when: { where: "k=yes" } }] }] };\n`,
  );
  let id: string;
  {
    await using dev = await startDev(tmp.path);
    const r = await fetch(`${dev.url}/gh`, { method: "POST", body: JSON.stringify({ k: "no" }) });
    id = (await r.json()).id;
    await until(() => /not forwarded \(no rule matched\)/.test(dev.stdout()), "no rule took it");
    assert.equal(await dev.stop(), 0);
  }
  const replay = await runCli(["replay", id], { cwd: tmp.path });
  assert.equal(replay.code, 0, replay.stderr);
  assert.equal(a.requests.length, 1);
  const d = await deliveryOf(tmp.path, id);
  assert.deepEqual([d.outcome, d.targets, d.others?.map((o) => [o.name, o.outcome])], ["none", [], [[
    "a",
    "delivered",
  ]]]);
  const inspect = await runCli(["inspect", id], { cwd: tmp.path });
  assert.match(inspect.stdout, /Forwarding: not forwarded \(no rule matched\)/);
  assert.match(inspect.stdout, /Sent elsewhere .*\n {2}a: delivered \(200, 1 replay\)/);
  assert.doesNotMatch(inspect.stdout, /replay --to/, "it was a plain replay, not one with --to");
  const logs = await runCli(["logs"], { cwd: tmp.path, env: { COLUMNS: "250" } });
  assert.match(logs.stdout, /not forwarded \(no rule matched\)/);
});

Deno.test({
  name:
    "dev stopped while retrying, a failed replay, dev restarted: it resumes the event at its own next attempt",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using tmp = await withTmpDir();
    let status = 500;
    await using app = startApp(0, () => ({ status }));
    await writeFile(
      tmp.path,
      "hooktap.config.ts",
      `export default { port: 0, ui: false, endpoints: [{ name: "gh", path: "/gh", method: "POST", forward: ` +
        `{ to: "http://127.0.0.1:${app.port}/hook", retry: { attempts: 3, backoff: [60000] } } }] };\n`,
    );
    let id: string;
    {
      await using dev = await startDev(tmp.path);
      const r = await fetch(`${dev.url}/gh`, { method: "POST", body: "{}" });
      id = (await r.json()).id;
      await until(() => /attempt 1 retry in/.test(dev.stdout()), "the first attempt failed");
      assert.equal(await dev.stop(), 0);
    }
    const replay = await runCli(["replay", id], { cwd: tmp.path });
    assert.equal(replay.code, 1);
    assert.equal((await deliveryOf(tmp.path, id)).outcome, "retrying", "dev had not given up");
    status = 200;
    await using dev = await startDev(tmp.path);
    await until(() => /\[200\]/.test(dev.stdout()), "the resumed delivery");
    assert.match(dev.stdout(), /\[200\].*attempt 2\b/, dev.stdout());
    const d = await deliveryOf(tmp.path, id);
    assert.deepEqual([d.outcome, d.targets[0]!.attempts, d.targets[0]!.replays], ["delivered", 3, 1]);
  },
});
