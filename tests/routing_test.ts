/**
 * Issue 13 through the real CLI: pattern routes and their params in
 * `inspect`, a config edited while a bounded load runs, the unmatched log
 * and `logs --unmatched`, the ready line and the ready file.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { readEvents, runCli, startDev, withTmpDir, writeFile } from "./_helpers.ts";

function config(endpoints: string): string {
  return `export default { port: 8787, endpoints: [${endpoints}] };\n`;
}
const WEBHOOK = `{ name: "default", path: "/webhook", method: "POST" }`;

async function waitFor(what: string, test: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

Deno.test("a pattern endpoint stores its params, inspect shows them, and an exact path wins", async () => {
  await using tmp = await withTmpDir();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    config(
      `{ name: "any", path: "/hooks/:provider", method: "POST" }, { name: "gh", path: "/hooks/github", method: "POST" }`,
    ),
  );
  await using dev = await startDev(tmp.path);
  const post = (path: string) =>
    fetch(dev.url + path, { method: "POST", body: "{}" }).then((r) => (r.body?.cancel(), r.status));
  assert.equal(await post("/hooks/github"), 200);
  assert.equal(await post("/hooks/caf%c3%a9"), 200);
  assert.equal(await post("/hooks/caf%C3%A9/x"), 404);
  const events = await readEvents(tmp.path);
  assert.deepEqual(events.map((e) => [e.endpoint, e.path, e.params]), [
    ["gh", "/hooks/github", undefined],
    ["any", "/hooks/caf%c3%a9", { provider: "café" }],
  ]);
  const shown = await runCli(["inspect", "--endpoint", "any"], { cwd: tmp.path });
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, /params\s+provider="café"/);
});

Deno.test("a config edited while a bounded load runs: nothing dropped, the new endpoint answers, a broken edit keeps it", async () => {
  await using tmp = await withTmpDir();
  const file = await writeFile(tmp.path, "hooktap.config.ts", config(WEBHOOK));
  await using dev = await startDev(tmp.path, ["--quiet"]);
  let stop = false;
  const statuses: number[] = [];
  const MAX = 4000; // bounded whatever happens
  const client = async () => {
    while (!stop && statuses.length < MAX) {
      const r = await fetch(`${dev.url}/webhook`, { method: "POST", body: "load" });
      await r.body?.cancel();
      statuses.push(r.status);
    }
  };
  const load = Promise.all(Array.from({ length: 6 }, client));
  let loadError: unknown;
  try {
    await waitFor("load to start", () => statuses.length > 20);

    await Deno.writeTextFile(file, config(`${WEBHOOK}, { name: "new", path: "/new/:id", method: "POST" }`));
    await waitFor("the new endpoint", async () => {
      const r = await fetch(`${dev.url}/new/1`, { method: "POST", body: "n" });
      await r.body?.cancel();
      return r.status === 200;
    });
    assert.match(dev.stderr(), /Config reloaded:\n\s+\+ POST \/new\/:id \(new\)/);

    await Deno.writeTextFile(file, "export default { port: 8787, endpoints: [ }\n");
    await waitFor("the broken edit's report", () => dev.stderr().includes("Config not reloaded"));
    const afterBroken = await fetch(`${dev.url}/new/2`, { method: "POST", body: "n" });
    await afterBroken.body?.cancel();
    assert.equal(afterBroken.status, 200);
    assert.match(dev.stderr(), /Still serving the previous config/);

    await Deno.writeTextFile(file, config(WEBHOOK).replace("8787", "9999"));
    await waitFor("the port notice", () => dev.stderr().includes("port changed 8787 -> 9999"));
    // dev runs with --port 0 (tests/_helpers.ts): the config's port changes nothing for this run, and it says so.
    assert.match(dev.stderr(), /no change for this run, which listens on \d+ as --port asked/);
  } finally {
    // A failed step above must not leave the clients posting to a dev that is going away.
    stop = true;
    loadError = await load.then(() => undefined, (error: unknown) => error ?? "the load failed");
  }
  if (loadError !== undefined) throw loadError;
  assert.ok(statuses.length > 20);
  assert.deepEqual(statuses.filter((s) => s !== 200), [], "every request during the reloads got 200");
  assert.equal(await dev.stop("SIGTERM"), 0);
  const events = await readEvents(tmp.path);
  assert.equal(events.filter((e) => e.endpoint === "default").length, statuses.length);
  assert.deepEqual(events.filter((e) => e.endpoint === "new").map((e) => e.params), [{ id: "1" }, {
    id: "2",
  }]);
});

Deno.test("unmatched requests go to .hooktap/unmatched.jsonl, not the events, and logs --unmatched gives hints", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", config(WEBHOOK));
  await using dev = await startDev(tmp.path);
  for (let i = 0; i < 3; i++) {
    await fetch(`${dev.url}/`, { method: "POST", body: "x" }).then((r) => r.body?.cancel());
  }
  await fetch(`${dev.url}/webhook`).then((r) => r.body?.cancel());
  await fetch(`${dev.url}/webhook`, { method: "POST", body: "ok" }).then((r) => r.body?.cancel());
  assert.equal(await dev.stop("SIGTERM"), 0);
  assert.equal((await readEvents(tmp.path)).length, 1);
  const logged = (await Deno.readTextFile(join(tmp.path, ".hooktap", "unmatched.jsonl"))).trim().split("\n");
  assert.equal(logged.length, 4);
  const human = await runCli(["logs", "--unmatched"], { cwd: tmp.path });
  assert.equal(human.code, 0, human.stderr);
  assert.match(human.stdout, /POST\s+\/\s+404\s+no endpoint/);
  assert.match(human.stdout, /GET\s+\/webhook\s+405\s+accepts POST/);
  assert.match(human.stderr, /hint: 3 POST requests to \/ : your sender's URL lacks \/webhook/);
  assert.match(human.stderr, /hint: 1 GET request to \/webhook : wrong method, this path accepts POST/);
  const json = await runCli(["logs", "--unmatched", "--json", "-n", "2"], { cwd: tmp.path });
  assert.deepEqual(json.stdout.trim().split("\n").map((l) => JSON.parse(l).status), [404, 405]);
});

Deno.test("dev --json prints the ready object first; --ready-file writes the same object", async () => {
  await using tmp = await withTmpDir();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    config(`${WEBHOOK}, { name: "p", path: "/p/:id", method: ["POST", "PUT"] }`),
  );
  // Outside .hooktap: a ready file in the data directory is refused (tests/fault/misuse_test.ts).
  await using dev = await startDev(tmp.path, ["--json", "--ready-file", "ready.json"], {
    permissions: ["--allow-net", "--allow-read=.", "--allow-write=.hooktap,ready.json"],
  });
  await waitFor(
    "the ready file",
    async () => (await Deno.stat(join(tmp.path, "ready.json")).catch(() => null)) !== null,
  );
  await waitFor("the ready line", () => dev.stdout().includes("\n"));
  const line = JSON.parse(dev.stdout().split("\n")[0]!);
  const file = JSON.parse(await Deno.readTextFile(join(tmp.path, "ready.json")));
  assert.deepEqual(line, file);
  assert.deepEqual(line, {
    type: "ready",
    port: dev.port,
    url: dev.url,
    endpoints: [
      { name: "default", methods: ["POST"], path: "/webhook", url: `${dev.url}/webhook` },
      { name: "p", methods: ["POST", "PUT"], path: "/p/:id", url: `${dev.url}/p/:id` },
    ],
    dataDir: await Deno.realPath(join(tmp.path, ".hooktap")),
    inspector: line.inspector,
    pid: dev.child.pid,
  });
  // The inspector's URL is a live one on loopback (by default the receiver's port + 1, or the next free one).
  // It is the link dev prints: its token is required by the inspector's API.
  assert.match(line.inspector, /^http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{64}$/);
  const token = new URL(line.inspector).searchParams.get("token")!;
  const info = await fetch(new URL("api/info", line.inspector), { headers: { "x-hooktap-token": token } });
  assert.equal(info.status, 200);
  await info.body?.cancel();
  await fetch(`${dev.url}/webhook`, { method: "POST", body: "x" }).then((r) => r.body?.cancel());
  await waitFor("the request line", () => dev.stdout().split("\n").length > 2);
  assert.equal(JSON.parse(dev.stdout().split("\n")[1]!).status, 200);
});

Deno.test("dev --ready-file FILE when Deno may write only FILE (the npm package's grant): written", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", config(WEBHOOK));
  await using dev = await startDev(tmp.path, ["--ready-file", "ready.json"], {
    permissions: ["--allow-net", "--allow-read=.", "--allow-write=.hooktap,ready.json"],
  });
  await waitFor(
    "the ready file",
    async () => (await Deno.stat(join(tmp.path, "ready.json")).catch(() => null)) !== null,
  );
  assert.equal(JSON.parse(await Deno.readTextFile(join(tmp.path, "ready.json"))).port, dev.port);
});

Deno.test("dev --ready-file that cannot be written stops dev with a clear error", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", config(WEBHOOK));
  const r = await runCli(["dev", "--port", "0", "--ready-file", "nodir/ready.json"], { cwd: tmp.path });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /Cannot write the ready file .*nodir\/ready\.json/);
});

Deno.test("a reload that changes only an endpoint's maxBodySize names the change (never X -> X)", async () => {
  await using tmp = await withTmpDir();
  const file = await writeFile(tmp.path, "hooktap.config.ts", config(WEBHOOK));
  await using dev = await startDev(tmp.path, ["--quiet"]);
  await Deno.writeTextFile(
    file,
    config(`{ name: "default", path: "/webhook", method: "POST", maxBodySize: 2048 }`),
  );
  await waitFor("the reload", () => dev.stderr().includes("Config reloaded"));
  const big = await fetch(`${dev.url}/webhook`, { method: "POST", body: "x".repeat(4096) });
  await big.body?.cancel();
  assert.equal(big.status, 413, "the new limit applies");
  assert.doesNotMatch(dev.stderr(), /~ POST \/webhook \(default\) -> POST \/webhook \(default\)\n/);
  assert.match(dev.stderr(), /~ POST \/webhook \(default\): maxBodySize [\d.]+ MiB -> 2\.0 KiB/);
});
