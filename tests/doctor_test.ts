/**
 * `hooktap doctor` through the real CLI on each reason no webhook arrives:
 * no dev running, a tunnel to another port, a sender whose URL lacks the
 * endpoint path, a sender using the wrong method; and the all-well case.
 * The tunnel is a fake ngrok agent API replaying a recorded answer.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { LEAST_PRIVILEGE, runCli, startDev, withTmpDir, writeFile } from "./_helpers.ts";
import { fakeApi, fixture } from "./_tunnel_fake.ts";

const PERMISSIONS = [...LEAST_PRIVILEGE, "--allow-env=HOOKTAP_NGROK_API,HOOKTAP_CLOUDFLARED_METRICS"];
const NOTHING = "http://127.0.0.1:9"; // nothing listens: no real tunnel on this machine interferes

interface Report {
  ok: boolean;
  checks: { id: string; status: string; summary: string; fix?: string; details?: string[] }[];
}

async function doctor(
  cwd: string,
  ngrokApi: string = NOTHING,
): Promise<{ code: number; report: Report; human: string }> {
  const env = { HOOKTAP_NGROK_API: ngrokApi, HOOKTAP_CLOUDFLARED_METRICS: NOTHING };
  const json = await runCli(["doctor", "--json"], { cwd, permissions: PERMISSIONS, env });
  const human = await runCli(["doctor"], { cwd, permissions: PERMISSIONS, env });
  assert.equal(human.code, json.code, human.stderr);
  return { code: json.code, report: JSON.parse(json.stdout), human: human.stdout };
}

/** Waits until dev has logged `n` unmatched requests (the log is written after the answer). */
async function unmatchedLogged(dir: string, n: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const text = await Deno.readTextFile(`${dir}/.hooktap/unmatched.jsonl`).catch(() => "");
    if (text.split("\n").length - 1 >= n) return;
    if (Date.now() > deadline) throw new Error(`dev logged fewer than ${n} unmatched requests`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const status = (r: Report, id: string) => r.checks.find((c) => c.id === id)!;

async function project(): Promise<{ path: string } & AsyncDisposable> {
  const tmp = await withTmpDir();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 8787, endpoints: [{ name: "default", path: "/webhook", method: "POST" }] };\n`,
  );
  return tmp;
}

async function ngrokTo(port: number) {
  const answer = (await fixture("ngrok_v3_tunnels.json")).replace(
    "http://localhost:8787",
    `http://localhost:${port}`,
  );
  return fakeApi("/api/tunnels", answer);
}

Deno.test("doctor: all well when dev runs, the tunnel points at its port and the endpoint has events", async () => {
  await using tmp = await project();
  await using dev = await startDev(tmp.path);
  await using ngrok = await ngrokTo(dev.port);
  await fetch(`${dev.url}/webhook`, { method: "POST", body: "{}" }).then((r) => r.body?.cancel());
  const { code, report, human } = await doctor(tmp.path, ngrok.url);
  assert.equal(code, 0, human);
  assert.equal(report.ok, true);
  assert.deepEqual(report.checks.map((c) => [c.id, c.status]), [
    ["dev", "ok"],
    ["port", "ok"],
    ["tunnel", "ok"],
    ["senders", "ok"],
    ["events", "ok"],
    ["config", "ok"],
  ]);
  assert.match(human, /https:\/\/3f2a-203-0-113-7\.ngrok-free\.app\/webhook\s+\(default\)/);
  assert.match(human, /All well\./);
});

Deno.test("doctor: no dev running for this directory", async () => {
  await using tmp = await project();
  const { code, report, human } = await doctor(tmp.path);
  assert.equal(code, 1);
  assert.equal(status(report, "dev").status, "fail");
  assert.match(status(report, "dev").fix!, /hooktap dev/);
  assert.match(human, /FAIL\s+receiver running: No hooktap dev is running/);
});

Deno.test("doctor: the tunnel forwards to another port", async () => {
  await using tmp = await project();
  await using dev = await startDev(tmp.path);
  await using ngrok = await ngrokTo(dev.port === 3000 ? 3001 : 3000);
  await fetch(`${dev.url}/webhook`, { method: "POST", body: "{}" }).then((r) => r.body?.cancel());
  const { code, report } = await doctor(tmp.path, ngrok.url);
  assert.equal(code, 1);
  const tunnel = status(report, "tunnel");
  assert.equal(tunnel.status, "fail");
  assert.match(tunnel.summary, new RegExp(`forwards to port 300[01], but hooktap listens on ${dev.port}`));
  assert.equal(tunnel.fix, `restart the tunnel on hooktap's port: ngrok http ${dev.port}`);
  assert.equal(status(report, "dev").status, "ok");
});

Deno.test("doctor: a sender whose URL lacks the endpoint path (or has an old one)", async () => {
  await using tmp = await project();
  await using dev = await startDev(tmp.path);
  await using ngrok = await ngrokTo(dev.port);
  for (let i = 0; i < 2; i++) {
    await fetch(`${dev.url}/`, { method: "POST", body: "{}" }).then((r) => r.body?.cancel());
  }
  await fetch(`${dev.url}/old-hook`, { method: "POST", body: "{}" }).then((r) => r.body?.cancel());
  await unmatchedLogged(tmp.path, 3);
  const { code, report, human } = await doctor(tmp.path, ngrok.url);
  assert.equal(code, 1);
  const senders = status(report, "senders");
  assert.equal(senders.status, "fail");
  assert.match(senders.summary, /^2 POST requests to \/ : your sender's URL lacks \/webhook$/m);
  assert.match(senders.summary, /1 POST request to \/old-hook : no endpoint has this path/);
  assert.match(senders.fix!, /\/: at the sender, end the URL with \/webhook/);
  assert.match(senders.fix!, /\/old-hook: at the sender, use <tunnel URL> followed by one of/);
  assert.equal(status(report, "events").status, "warn"); // nothing reached /webhook
  // Each hint once (summary), never again in the details; the details say how to clear test requests.
  assert.equal(senders.details?.some((d) => /POST requests? to/.test(d)), false, senders.details?.join("\n"));
  assert.match(senders.details!.join("\n"), /empty the log .*: : > \.hooktap\/unmatched\.jsonl/);
  assert.equal(human.split("1 POST request to /old-hook").length, 2, human);
  // Done as said, while dev runs: the check clears, and the next stray request is still logged.
  await Deno.truncate(join(tmp.path, ".hooktap", "unmatched.jsonl"), 0);
  const cleared = await doctor(tmp.path, ngrok.url);
  assert.equal(status(cleared.report, "senders").status, "ok");
  await fetch(`${dev.url}/again`, { method: "POST", body: "{}" }).then((r) => r.body?.cancel());
  await unmatchedLogged(tmp.path, 1);
});

Deno.test("doctor: a sender using the wrong method", async () => {
  await using tmp = await project();
  await using dev = await startDev(tmp.path);
  await using ngrok = await ngrokTo(dev.port);
  await fetch(`${dev.url}/webhook`, { method: "PUT", body: "{}" }).then((r) => r.body?.cancel());
  await fetch(`${dev.url}/webhook`, { method: "POST", body: "{}" }).then((r) => r.body?.cancel());
  await unmatchedLogged(tmp.path, 1);
  const { code, report } = await doctor(tmp.path, ngrok.url);
  assert.equal(code, 1);
  const senders = status(report, "senders");
  assert.equal(senders.status, "fail");
  assert.equal(senders.summary, "1 PUT request to /webhook : wrong method, this path accepts POST");
  assert.match(senders.fix!, /set the sender to POST/);
  assert.deepEqual(report.checks.filter((c) => c.status !== "ok").map((c) => c.id), ["senders"]);
});

Deno.test("doctor: the config's port is held by another directory's hooktap dev, and it says so", async () => {
  await using other = await project();
  await using dev = await startDev(other.path);
  await using tmp = await withTmpDir();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: ${dev.port}, endpoints: [{ name: "default", path: "/webhook", method: "POST" }] };\n`,
  );
  const { code, report, human } = await doctor(tmp.path);
  assert.equal(code, 1);
  const port = status(report, "port");
  assert.equal(port.status, "fail");
  assert.match(
    port.summary,
    new RegExp(`^Another hooktap dev \\(in another directory\\) answers on port ${dev.port}`),
  );
  // The probe answers a nonce, never the pid (docs/security.md): the fix names how to stop it, not a pid.
  assert.match(port.fix!, /stop that hooktap dev \(Ctrl-C in its terminal\)/);
  assert.doesNotMatch(human, /Another program answers/);
});

Deno.test("doctor: a config that no longer loads is reported, and the running dev's endpoints are checked (not the starter's)", async () => {
  await using tmp = await withTmpDir();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 8787, endpoints: [{ name: "shop", path: "/shop/orders", method: "POST" }] };\n`,
  );
  await using dev = await startDev(tmp.path);
  const sent = await fetch(`${dev.url}/shop/orders`, { method: "POST", body: "{}" });
  assert.equal(sent.status, 200);
  await sent.body?.cancel();
  // The config breaks while dev runs: dev keeps serving /shop/orders.
  await writeFile(tmp.path, "hooktap.config.ts", `export default { port: 8787, endpoints: [ ;\n`);
  const deadline = Date.now() + 10_000;
  while (!/Config not reloaded/.test(dev.stderr())) {
    if (Date.now() > deadline) throw new Error(`dev did not see the edit:\n${dev.stderr()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const { code, report, human } = await doctor(tmp.path);
  assert.equal(code, 1);
  const config = status(report, "config");
  assert.equal(config.status, "fail");
  assert.match(config.fix!, /the running dev reloads it/);
  assert.ok(
    config.details!.some((d) =>
      /running dev keeps serving its last good config.*shop \/shop\/orders/.test(d)
    ),
  );
  const events = status(report, "events");
  assert.equal(events.status, "ok", events.summary);
  assert.match(events.summary, /^shop: last event/);
  assert.doesNotMatch(human, /\/webhook|"default"|default:/, "never the starter's endpoint");

  // The endpoints are told only to a probe that carries the run's nonce (from the owner-only dev.lock).
  for (const run of [undefined, "not-the-run"]) {
    const r = await fetch(`${dev.url}/.hooktap/probe`, {
      headers: { "x-hooktap-probe": "endpoints", ...(run ? { "x-hooktap-run": run } : {}) },
    });
    const body = await r.json();
    assert.equal(body.hooktap, true);
    assert.equal(body.endpoints, undefined);
  }
});

Deno.test("doctor: a broken config with no dev running says so and checks no invented endpoint", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", `export default { port: 8787, endpoints: [ ;\n`);
  const { code, report, human } = await doctor(tmp.path);
  assert.equal(code, 1);
  assert.equal(status(report, "config").status, "fail");
  assert.match(status(report, "config").fix!, /does not start on a config that does not load/);
  assert.equal(status(report, "events").status, "skip");
  assert.doesNotMatch(human, /\/webhook/);
});

Deno.test("doctor: requests refused under another config that this one accepts are not a sender's mistake", async () => {
  await using tmp = await project();
  // An earlier `dev --config other.ts` whose endpoint took P0ST (a typo): two POSTs to /webhook got 405.
  await writeFile(
    tmp.path,
    "other.ts",
    `export default { port: 8787, endpoints: [{ name: "default", path: "/webhook", method: "P0ST" }] };\n`,
  );
  {
    await using other = await startDev(tmp.path, ["--config", "other.ts"]);
    for (let i = 0; i < 2; i++) {
      const r = await fetch(`${other.url}/webhook`, { method: "POST", body: "{}" });
      await r.body?.cancel();
      assert.equal(r.status, 405);
    }
    await unmatchedLogged(tmp.path, 2);
    await other.stop();
  }
  await using dev = await startDev(tmp.path); // the normal config: POST /webhook
  await using ngrok = await ngrokTo(dev.port);
  const { report, human } = await doctor(tmp.path, ngrok.url);
  const senders = status(report, "senders");
  assert.equal(senders.status, "ok", human);
  assert.doesNotMatch(human, /P0ST/);
  assert.match(senders.details!.join("\n"), /2 earlier unmatched requests .* would be accepted now/);
  // Requests the current config still refuses are judged by it: a 405 names what the path accepts now.
  const r = await fetch(`${dev.url}/webhook`, { method: "PUT", body: "{}" });
  await r.body?.cancel();
  await unmatchedLogged(tmp.path, 3);
  const again = status((await doctor(tmp.path, ngrok.url)).report, "senders");
  assert.equal(again.status, "fail");
  assert.equal(again.summary, "1 PUT request to /webhook : wrong method, this path accepts POST");
});

Deno.test("doctor: unmatched requests with a config that does not load name no empty list of paths", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", `export default { port: 8787, endpoints: [ ;\n`);
  const line = { time: new Date().toISOString(), method: "POST", path: "/old", query: "", status: 404 };
  await writeFile(tmp.path, ".hooktap/unmatched.jsonl", JSON.stringify(line) + "\n");
  const { report, human } = await doctor(tmp.path);
  assert.doesNotMatch(human, /one of: ;|one of: $/m);
  const senders = status(report, "senders");
  assert.equal(senders.status, "skip");
  assert.match(
    senders.summary,
    /1 unmatched request in the last 24 h, but no endpoints to judge them against/,
  );
});

Deno.test("doctor: a forward target that is down while events wait for it is named, with the waiting count", async () => {
  await using tmp = await withTmpDir();
  const free = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const appPort = (free.addr as Deno.NetAddr).port;
  free.close(); // nothing listens there now: the app is down
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 8787, endpoints: [{ name: "default", path: "/webhook", method: "POST", ` +
      `forward: { to: "http://127.0.0.1:${appPort}/hook", name: "app" } }] };\n`,
  );
  {
    await using dev = await startDev(tmp.path);
    await using ngrok = await ngrokTo(dev.port);
    for (let i = 0; i < 3; i++) {
      const r = await fetch(`${dev.url}/webhook`, { method: "POST", body: `{"n":${i}}` });
      await r.body?.cancel();
      assert.equal(r.status, 200);
    }
    const { code, report, human } = await doctor(tmp.path, ngrok.url);
    assert.equal(code, 1);
    const forward = status(report, "forward");
    assert.equal(forward.status, "fail", human);
    assert.match(
      forward.summary,
      new RegExp(
        `^3 events of endpoint "default" wait for forward target "app" \\(http://127\\.0\\.0\\.1:${appPort}/hook\\): nothing listens there`,
      ),
    );
    assert.match(forward.fix!, /the running hooktap dev delivers the waiting events once it listens/);
    assert.match(human, /FAIL {2}forwarding: 3 events/);
    await dev.stop();
  }
  // The app is up, dev is not: they wait for dev.
  const app = Deno.listen({ hostname: "127.0.0.1", port: appPort });
  try {
    const forward = status((await doctor(tmp.path)).report, "forward");
    assert.equal(forward.status, "warn");
    assert.match(
      forward.summary,
      /3 events .* wait for forward target "app" .*; no hooktap dev runs to deliver them/,
    );
  } finally {
    app.close();
  }
});

/** `hooktap doctor --json` with `args`, its forwarding check (absent: `undefined`). */
async function forwardOf(cwd: string, args: string[] = []) {
  const env = { HOOKTAP_NGROK_API: NOTHING, HOOKTAP_CLOUDFLARED_METRICS: NOTHING };
  const r = await runCli(["doctor", "--json", ...args], { cwd, permissions: PERMISSIONS, env });
  return (JSON.parse(r.stdout) as Report).checks.find((c) => c.id === "forward");
}

Deno.test("doctor: events an earlier dev --forward-to marked for a URL the config does not forward to get the commands that deliver them", async () => {
  await using tmp = await withTmpDir();
  const free = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const appPort = (free.addr as Deno.NetAddr).port;
  free.close();
  const url = `http://127.0.0.1:${appPort}/gh`;
  const gh =
    `export default { port: 0, ui: false, endpoints: [{ name: "gh", path: "/gh", method: "POST" }] };\n`;
  await writeFile(tmp.path, "hooktap.config.ts", gh);
  await writeFile(tmp.path, "alt.config.ts", gh);
  await writeFile(tmp.path, "pat.config.ts", gh.replaceAll("gh", "other"));
  {
    // The app is down: the event waits for the --forward-to URL.
    await using dev = await startDev(tmp.path, ["--forward-to", url]);
    const r = await fetch(`${dev.url}/gh`, { method: "POST", body: "{}" });
    await r.body?.cancel();
    assert.equal(r.status, 200);
    assert.equal(await dev.stop("SIGINT"), 0);
  }
  const forward = (await forwardOf(tmp.path))!;
  assert.equal(forward.status, "fail");
  assert.doesNotMatch(forward.fix!, /delivers them at start|delivers the waiting events/);
  const replay = `hooktap replay --undelivered --endpoint gh --target 127.0.0.1:${appPort}/gh --to ${url}`;
  assert.equal(
    forward.fix,
    `they were marked for ${url}, which hooktap.config.ts does not forward to; start the app at ${url}, ` +
      `then deliver them with hooktap dev --forward-to ${url} or ${replay} (run while no hooktap dev runs)`,
  );
  // A config without the endpoint: no dev command, which would not deliver them either.
  const pat = (await forwardOf(tmp.path, ["--config", "pat.config.ts"]))!;
  assert.match(pat.fix!, /which pat\.config\.ts does not forward to \(it has no endpoint "gh"\)/);
  assert.doesNotMatch(pat.fix!, /hooktap dev --/);
  assert.ok(pat.fix!.includes(replay), pat.fix);
  const app = Deno.serve(
    { hostname: "127.0.0.1", port: appPort, onListen: () => {} },
    () => new Response("ok"),
  );
  try {
    {
      // A dev on alt.config.ts runs and the app listens: that dev does not deliver them.
      await using dev = await startDev(tmp.path, ["--config", "alt.config.ts"]);
      const alt = (await forwardOf(tmp.path))!;
      assert.equal(alt.status, "warn");
      assert.equal(
        alt.fix,
        `they were marked for ${url}, which alt.config.ts does not forward to; stop the running hooktap dev, ` +
          `then deliver them with hooktap dev --forward-to ${url} --config alt.config.ts or ${replay} ` +
          `(run while no hooktap dev runs)`,
      );
      assert.equal(await dev.stop("SIGINT"), 0);
    }
    // Pasted, the replay delivers them; then nothing waits.
    const sent = await runCli(replay.split(" ").slice(1), { cwd: tmp.path });
    assert.equal(sent.code, 0, sent.stderr);
    assert.equal(await forwardOf(tmp.path), undefined);
  } finally {
    await app.shutdown();
  }
});

Deno.test("doctor --config FILE that does not exist: no command on it but the one creating it, and no invented port", async () => {
  await using tmp = await withTmpDir();
  const env = { HOOKTAP_NGROK_API: NOTHING, HOOKTAP_CLOUDFLARED_METRICS: NOTHING };
  const r = await runCli(["doctor", "--json", "--config", "nope.ts"], {
    cwd: tmp.path,
    permissions: PERMISSIONS,
    env,
  });
  assert.equal(r.code, 1, r.stderr);
  const report = JSON.parse(r.stdout) as Report;
  const fixes = report.checks.flatMap((c) => c.fix === undefined ? [] : [c.fix]);
  const commands = fixes.join("\n").match(/hooktap [a-z]+[^()\n;]*--config nope\.ts/g) ?? [];
  assert.deepEqual([...new Set(commands)], ["hooktap init --yes --config nope.ts"], fixes.join("\n"));
  assert.match(
    status(report, "config").fix!,
    /^nope\.ts does not exist: create it \(hooktap init --yes --config nope\.ts\)/,
  );
  assert.doesNotMatch(JSON.stringify(report), /fix the problems listed|run `hooktap init` to write one/);
  assert.equal(status(report, "port").status, "skip");
  assert.match(status(report, "tunnel").fix!, /ngrok http <dev's port> /);
  assert.doesNotMatch(status(report, "tunnel").fix!, /8787/);
  // Pasted, the command creates it, and doctor then finds it loads.
  const init = await runCli(["init", "--yes", "--config", "nope.ts"], {
    cwd: tmp.path,
    permissions: ["--allow-read=.", "--allow-write=nope.ts"],
  });
  assert.equal(init.code, 0, init.stderr);
  const after = await runCli(["doctor", "--json", "--config", "nope.ts"], {
    cwd: tmp.path,
    permissions: PERMISSIONS,
    env,
  });
  assert.equal(status(JSON.parse(after.stdout), "config").status, "ok");
});
