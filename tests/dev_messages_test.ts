/**
 * What `hooktap dev` prints is true, through the real CLI: a config port change under `--port`, forwarding
 * added by a reload to a dev started without it, the count of waiting events that go out when the app is
 * back, a Ctrl-C during a delivery in flight (and where the next start sends it), the banner of
 * `--forward-to`, and `--no-ui`'s help.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { freePort, startApp, until, unusedPort } from "./_app.ts";
import { readEvents, runCli, startDev, withTmpDir, writeFile } from "./_helpers.ts";

const endpoint = (name: string, forward?: string) =>
  `{ name: "${name}", path: "/${name}", method: "POST"${forward ? `, forward: "${forward}"` : ""} }`;
const configText = (port: number, endpoints: string[]) =>
  `export default { port: ${port}, ui: false, endpoints: [${endpoints.join(", ")}] };\n`;

/** Rewrites the config and waits for dev's reload line (the watch sees the edit, loads, prints). */
async function edit(dir: string, text: string, dev: { stderr(): string }, after: number): Promise<string> {
  await writeFile(dir, "hooktap.config.ts", text);
  await until(() => dev.stderr().slice(after).includes("Config reloaded"), "the reload line");
  await new Promise((r) => setTimeout(r, 300)); // the lines printed with it
  return dev.stderr().slice(after);
}

Deno.test("a config port change under --port names no port dev is not on, and asks no restart", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", configText(18787, [endpoint("gh")]));
  await using dev = await startDev(tmp.path); // --port 0: the flag chooses the port
  const said = await edit(tmp.path, configText(18793, [endpoint("gh")]), dev, dev.stderr().length);
  assert.match(
    said,
    new RegExp(
      `port changed 18787 -> 18793: no change for this run, which listens on ${dev.port} as --port asked`,
    ),
  );
  assert.doesNotMatch(said, /still listening on 18787|to listen on 18793/);
  assert.equal(await dev.stop(), 0);
});

Deno.test("a config port change without --port says the port dev is bound to, not the config's old one", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", configText(0, [endpoint("gh")])); // 0: any free port
  await using dev = await startDev(tmp.path, [], { configPort: true });
  const to = unusedPort();
  const said = await edit(tmp.path, configText(to, [endpoint("gh")]), dev, dev.stderr().length);
  assert.match(
    said,
    new RegExp(`port changed 0 -> ${to}: still listening on ${dev.port}; restart .* to listen on ${to}\\.`),
  );
  assert.equal(await dev.stop(), 0);
});

Deno.test("forwarding added by a reload to a dev started without it: dev says it is not applied, and it is not", async () => {
  await using tmp = await withTmpDir();
  await using app = startApp(0, () => ({ status: 200 }));
  await writeFile(tmp.path, "hooktap.config.ts", configText(0, [endpoint("gh")]));
  await using dev = await startDev(tmp.path);
  const to = `http://127.0.0.1:${app.port}/hook`;
  const said = await edit(
    tmp.path,
    configText(0, [endpoint("gh", to), endpoint("st")]),
    dev,
    dev.stderr().length,
  );
  assert.match(said, /\+ POST \/st \(st\)/);
  assert.match(said, /forward of "gh" added: not applied, this hooktap dev started without forwarding/);
  assert.match(said, /Restart hooktap dev \(Ctrl-C, then hooktap dev\) to forward/);
  const r = await fetch(`${dev.url}/gh`, { method: "POST", body: "{}" });
  assert.equal(r.status, 200);
  await r.body?.cancel();
  await new Promise((res) => setTimeout(res, 1000));
  assert.equal(app.requests.length, 0, "as said: not forwarded");
  assert.equal(await dev.stop(), 0);
});

Deno.test("forward edited under --forward-to: dev says --forward-to still replaces it", async () => {
  await using tmp = await withTmpDir();
  await using app = startApp(0, () => ({ status: 200 }));
  await writeFile(tmp.path, "hooktap.config.ts", configText(0, [endpoint("gh")]));
  await using dev = await startDev(tmp.path, ["--forward-to", `http://127.0.0.1:${app.port}/x`]);
  const other = `http://127.0.0.1:${unusedPort()}/hook`;
  const said = await edit(tmp.path, configText(0, [endpoint("gh", other)]), dev, dev.stderr().length);
  assert.match(said, /forward of "gh" changed in the config: not applied, --forward-to replaces/);
  const r = await fetch(`${dev.url}/gh`, { method: "POST", body: "{}" });
  await r.body?.cancel();
  await until(() => app.requests.length === 1, "the delivery to --forward-to's URL");
  assert.equal(await dev.stop(), 0);
});

Deno.test("the app back after an outage: the count dev says is the number of events the app then gets", async () => {
  await using tmp = await withTmpDir();
  const appPort = unusedPort();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    configText(0, [endpoint("gh", `http://127.0.0.1:${appPort}/hook`)]),
  );
  await using dev = await startDev(tmp.path);
  for (let n = 0; n < 3; n++) {
    const r = await fetch(`${dev.url}/gh`, { method: "POST", body: JSON.stringify({ n }) });
    await r.body?.cancel();
  }
  await until(() => dev.stderr().includes("nothing listens"), "the app-down line");
  await using app = startApp(appPort, () => ({ status: 200 }));
  await until(() => /answers again/.test(dev.stderr()), "the app-back line");
  await until(() => app.requests.length >= 3, "3 deliveries");
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(app.requests.length, 3);
  assert.match(dev.stderr(), /answers again; the 3 events that waited go out now, in order\./);
  assert.equal(await dev.stop(), 0);
});

Deno.test("Ctrl-C during a delivery in flight: said as sent and not answered; the next start keeps it for the target it was marked for", async () => {
  await using tmp = await withTmpDir();
  // The --forward-to app answers its first request after 8 s; the config's app answers at once.
  await using slow = startApp(0, (_req, n) => ({ status: 200, ...(n === 1 ? { delayMs: 8000 } : {}) }));
  await using configured = startApp(0, () => ({ status: 200 }));
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    configText(0, [endpoint("gh", `http://127.0.0.1:${configured.port}/gh`)]),
  );
  const forwardTo = ["--forward-to", `http://127.0.0.1:${slow.port}/x`];
  let id: string;
  {
    const dev = await startDev(tmp.path, forwardTo);
    const r = await fetch(`${dev.url}/gh`, { method: "POST", body: "{}" });
    id = (await r.json()).id;
    await until(() => slow.requests.length === 1, "the request at the slow app");
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal(await dev.stop("SIGINT"), 0);
    // Only a dev given the same --forward-to sends it again (a plain one keeps it, below): the note says so.
    assert.match(
      dev.stderr(),
      new RegExp(
        `1 delivery was sent to your app and not answered before dev stopped \\(no longer awaited\\): the next ` +
          `hooktap dev --forward-to http://127\\.0\\.0\\.1:${slow.port}/x sends it again, so your app may see it twice\\.`,
      ),
    );
    assert.doesNotMatch(dev.stderr(), /still waiting for your app/);
  }
  {
    // The config forwards elsewhere: the event is not sent there, and said kept for its own target.
    const dev = await startDev(tmp.path);
    await until(() => dev.stderr().includes("does not forward to"), "the report of the kept event");
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(configured.requests.length, 0, "not sent to a target it was not meant for");
    assert.match(
      dev.stderr(),
      new RegExp(
        `1 event of endpoint gh waited for target 127\\.0\\.0\\.1:${slow.port}/x, which this run does not forward to`,
      ),
    );
    assert.equal(await dev.stop(), 0);
    const inspect = await runCli(["inspect", id], { cwd: tmp.path });
    assert.doesNotMatch(inspect.stdout, /delivered/, inspect.stdout);
  }
  {
    // Forwarding to it again resends it, marked as maybe seen.
    await using dev = await startDev(tmp.path, forwardTo);
    await until(() => slow.requests.length === 2, "the resent request");
    await until(() => /again after a restart/.test(dev.stdout()), "the resumed delivery line");
    assert.equal(await dev.stop(), 0);
    const inspect = await runCli(["inspect", id], { cwd: tmp.path });
    assert.match(
      inspect.stdout,
      new RegExp(`127\\.0\\.0\\.1:${slow.port}/x: delivered \\(200`),
      inspect.stdout,
    );
    const events = await readEvents(tmp.path);
    assert.equal(events.length, 1);
  }
});

Deno.test("the --forward-to banner names every endpoint it forwards, and a shared target its endpoints", async () => {
  await using tmp = await withTmpDir();
  const to = `http://127.0.0.1:${freePort()}/gh`;
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    configText(0, ["gh", "st", "sl", "sw"].map((n) => endpoint(n))),
  );
  {
    await using dev = await startDev(tmp.path, [
      "--forward-to",
      to,
      "--forward-events",
      "push",
      "--forward-mode",
      "relay",
    ]);
    await until(() => dev.stderr().includes("Forwarding"), "the banner");
    const lines = dev.stderr().split("\n").filter((l) => l.startsWith("Forwarding"));
    // A ruled target is named (its name is what `replay --target` takes).
    assert.deepEqual(lines, [`Forwarding every endpoint (relay) to ${to} as ${to.slice(7)} when type push`]);
    assert.equal(await dev.stop(), 0);
  }
  const app = `http://127.0.0.1:${freePort()}/hook`;
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    configText(0, [endpoint("gh", app), endpoint("st"), endpoint("sl", app)]),
  );
  await using dev = await startDev(tmp.path);
  await until(() => dev.stderr().includes("Forwarding"), "the banner");
  const lines = dev.stderr().split("\n").filter((l) => l.startsWith("Forwarding"));
  assert.deepEqual(lines, [`Forwarding "gh", "sl" (queue) to ${app}`]);
  assert.equal(await dev.stop(), 0);
});

Deno.test("dev --help: --no-ui says it turns the inspector off", async () => {
  await using tmp = await withTmpDir();
  const r = await runCli(["dev", "--help"], { cwd: tmp.path });
  assert.match(r.stdout, /--no-ui\s+do not serve the live inspector/);
  const doc = await Deno.readTextFile(join(import.meta.dirname!, "..", "docs", "commands.md"));
  assert.match(doc, /--no-ui\s+do not serve the live inspector/);
});
