/**
 * The packed npm package prints what the checkout prints: `hooktap logs` (every form: table, JSON Lines,
 * counts, filters, the delivery column, the unmatched requests, the hints of an empty store, errors) and
 * the help, byte for byte with the same exit code, run from the package's own files (lib/, extracted
 * from the tgz `deno task pack` writes) with the flags and script the Node launcher picks for each
 * (npm/hooktap.cjs: `logs` and the help run single-file bundles of their own, scripts/pack.ts). The npm
 * install itself is tested end to end in tests/install_test.ts.
 * @module
 */
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath, pathToFileURL } from "node:url";
import { freePort, startApp, until } from "./_app.ts";
import { cliArgs, startDev, withTmpDir, writeFile } from "./_helpers.ts";
import { logText, makeEvents } from "./_store_fixture.ts";

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const launcher = createRequire(import.meta.url)("../npm/hooktap.cjs") as {
  denoArgs(lib: string, args: string[], cwd?: string): string[];
  scriptOf(args: string[]): string;
};

interface Out {
  code: number;
  stdout: string;
  stderr: string;
}

async function output(args: string[], cwd: string, env: Record<string, string> = {}): Promise<Out> {
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1", HOOKTAP_INVOKED_AS: "hooktap", DENO_NO_UPDATE_CHECK: "1", ...env },
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** `deno task pack` into `dir`; resolves to the tgz's path. */
async function packTgz(dir: string): Promise<string> {
  const pack = await new Deno.Command(Deno.execPath(), {
    args: ["task", "--quiet", "pack", "--out-dir", dir],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(pack.success, new TextDecoder().decode(pack.stderr));
  return new TextDecoder().decode(pack.stdout).trim().split(" ")[0]!;
}

/** `deno task pack` into `dir`, the tgz extracted there; resolves to the package's lib/. */
async function packedLib(dir: string, tgz?: string): Promise<string> {
  tgz ??= await packTgz(dir);
  const tar = await new Deno.Command("tar", { args: ["-xzf", tgz, "-C", dir], stderr: "piped" }).output();
  assert.ok(tar.success, new TextDecoder().decode(tar.stderr));
  return join(dir, "package", "lib");
}

/** A project whose store holds generated events, forwarded ones (delivered and refused) and unmatched requests. */
async function project(dir: string): Promise<void> {
  await Deno.mkdir(join(dir, ".hooktap"), { recursive: true });
  await Deno.writeTextFile(
    join(dir, ".hooktap", "events.jsonl"),
    logText(makeEvents(40, { endpoints: ["default", "gh"] })),
  );
  const appPort = freePort();
  await writeFile(
    dir,
    "hooktap.config.ts",
    `export default { port: 0, endpoints: [` +
      `{ name: "default", path: "/webhook", method: "POST" }, ` +
      `{ name: "gh", path: "/gh", method: "POST", forward: { to: "http://127.0.0.1:${appPort}/hooks" } }` +
      `] };\n`,
  );
  await using app = startApp(appPort, (_req, n) => ({ status: n === 1 ? 500 : 200 }));
  await using dev = await startDev(dir);
  const post = async (path: string, body: BodyInit, type = "application/json") => {
    const r = await fetch(`${dev.url}${path}`, { method: "POST", headers: { "content-type": type }, body });
    await r.body?.cancel();
  };
  await post("/gh?x=1", '{"zen":"Ünïcödé \\u202e ✓","n":1}');
  await post("/gh", new Uint8Array([0xff, 0x00, 0x7b, 0x0d, 0x0a, 0x80]), "application/octet-stream");
  await post("/webhook/%E2%80%AEevil", "text with \x1b[31mescapes\x1b[0m", "text/plain");
  await post("/nosuch", "{}");
  await until(() => app.requests.length >= 2, "2 deliveries");
  assert.equal(await dev.stop(), 0);
}

Deno.test("the packed package prints byte for byte what the checkout prints for logs, complete and the help", async () => {
  await using tmp = await withTmpDir("hooktap_pack_output_");
  const lib = await packedLib(tmp.path);
  const app = join(tmp.path, "app");
  await project(app);
  const empty = join(tmp.path, "empty");
  await Deno.mkdir(empty);
  await writeFile(
    empty,
    "hooktap.config.ts",
    'export default { port: 9999, endpoints: [{ name: "x", path: "/x", method: "PUT" }] };\n',
  );
  const cases: [string, string[]][] = [
    [app, ["logs"]],
    [app, ["logs", "--json"]],
    [app, ["logs", "-n", "3"]],
    [app, ["logs", "--limit", "0"]],
    [app, ["logs", "--count"]],
    [app, ["logs", "--endpoint", "gh"]],
    [app, ["logs", "--endpoint", "nosuch"]],
    [app, ["logs", "--filter-method", "PUT", "--json"]],
    [app, ["logs", "--since", "1d"]],
    [app, ["logs", "--unmatched"]],
    [app, ["logs", "--bogus"]],
    [app, ["logs", "--help"]],
    [app, ["--help"]],
    [app, []],
    [app, ["--version"]],
    [app, ["help", "logs"]],
    [app, ["complete", "--", "logs", "--endpoint", ""]],
    [app, ["complete", "--", "tr"]],
    [empty, ["logs"]],
    [tmp.path, ["logs"]],
  ];
  // The packed runs keep their code cache in a Deno directory of their own (checked below).
  const denoDir = join(tmp.path, "deno_dir");
  let bundled = 0;
  for (const [cwd, args] of cases) {
    if (launcher.scriptOf(args) !== "main.js") bundled++;
    const checkout = await output(cliArgs(["-A"], args), cwd);
    const packed = await output(launcher.denoArgs(lib, args, cwd), cwd, { DENO_DIR: denoDir });
    const what = `hooktap ${args.join(" ")} in ${cwd}`;
    assert.equal(packed.stderr, checkout.stderr, what);
    assert.equal(packed.stdout, checkout.stdout, what);
    assert.equal(packed.code, checkout.code, what);
  }
  assert.equal(bundled, cases.length, "every case runs a single-file bundle");
  // The cases are not empty: a table with the delivery column, the unmatched request, the empty-store hint.
  const logs = await output(launcher.denoArgs(lib, ["logs"], app), app);
  assert.match(logs.stdout, /evt_.*gh/);
  assert.equal(logs.stdout.trim().split("\n").length, 20);
  const unmatched = await output(launcher.denoArgs(lib, ["logs", "--unmatched"], app), app);
  assert.match(unmatched.stdout, /nosuch/);
  const hint = await output(launcher.denoArgs(lib, ["logs"], empty), empty);
  assert.match(hint.stderr, /curl -X PUT http:\/\/localhost:9999\/x/);

  // Deno kept each single-file bundle's compiled code: they turn the event loop once, where Deno writes it
  // (a command that never waits on the loop exits first, and every run would compile the file again).
  const cacheFile = join(denoDir, "v8_code_cache_v2");
  assert.ok(
    (await Deno.stat(cacheFile).catch(() => null))?.isFile,
    `Deno's code cache is not at ${cacheFile} (Deno moved it? update this check)`,
  );
  const db = new DatabaseSync(cacheFile, { readOnly: true });
  try {
    const cached = (db.prepare("SELECT specifier FROM codecache").all() as { specifier: string }[])
      .map((row) => row.specifier);
    for (const script of ["main_logs.js", "main_help.js"]) {
      assert.ok(cached.includes(pathToFileURL(join(lib, script)).href), `${script} is not in the code cache`);
    }
  } finally {
    db.close();
  }
});

/**
 * The lines, headers or JSON leaves of `p` (the packed run) equal those of `a` and `b` (two checkout runs)
 * wherever `a` and `b` agree; where they differ, the value is made per run (an id, a random sample field).
 */
function sameWhereStable(what: string, a: string[], b: string[], p: string[]): void {
  assert.equal(p.length, a.length, `${what}: ${JSON.stringify(p)} against ${JSON.stringify(a)}`);
  assert.equal(b.length, a.length, `${what}: two checkout runs differ in shape`);
  for (let i = 0; i < a.length; i++) {
    if (a[i] === b[i]) assert.equal(p[i], a[i], `${what}, item ${i}`);
  }
}

/** A JSON document's leaves as `path=value` lines, in order (ids and timestamps differ per run). */
function leaves(value: unknown, path = ""): string[] {
  if (value === null || typeof value !== "object") return [`${path}=${JSON.stringify(value)}`];
  return Object.entries(value).flatMap(([k, v]) => [`${path}/${k}:`, ...leaves(v, `${path}/${k}`)]);
}

/** What a sink received, as comparable lines: request line, each header, and the body (its JSON leaves). */
function requestLines(r: { method: string; target: string; headers: [string, string][]; body: Uint8Array }) {
  const text = new TextDecoder().decode(r.body);
  let body: string[];
  try {
    body = leaves(JSON.parse(text));
  } catch {
    body = [text];
  }
  return [`${r.method} ${r.target}`, ...r.headers.map(([n, v]) => `${n}: ${v}`), "", ...body];
}

Deno.test("the packed package's trigger, inspect, replay and export match the checkout's (output, exit code, requests sent)", async () => {
  await using tmp = await withTmpDir("hooktap_pack_output_");
  const app = join(tmp.path, "app");
  await Deno.mkdir(join(tmp.path, "again"));
  const [tgz, again] = await Promise.all([packTgz(tmp.path), packTgz(join(tmp.path, "again")), project(app)]);
  // Two packs of one checkout are the same bytes (no temp path, time or order of their own).
  assert.deepEqual(await Deno.readFile(again), await Deno.readFile(tgz), "two packs differ");
  const lib = await packedLib(tmp.path, tgz);
  const sinkPort = freePort();
  await using sink = startApp(sinkPort, (req) => ({ status: req.target.includes("fail") ? 500 : 200 }));
  const to = `http://127.0.0.1:${sinkPort}/hook`;
  await Deno.writeTextFile(join(app, "body.json"), '{"ref":"refs/heads/main","zen":"Ünïcödé"}');
  await Deno.writeTextFile(join(app, "bad.config.ts"), 'export default { port: "x", endpoints: 3 };\n');
  await Deno.writeTextFile(
    join(app, "steps.json"),
    '{"steps": [{"event": "push"}, {"event": "pull_request.opened", "set": {"number": 7}}]}',
  );
  const ids = (await Deno.readTextFile(join(app, ".hooktap", "events.jsonl"))).trim().split("\n")
    .map((line) => (JSON.parse(line) as { id: string }).id);
  const [first, , , last] = [ids[0]!, ids.at(-3)!, ids.at(-2)!, ids.at(-1)!];
  const cases: string[][] = [
    ["trigger", "github", "push", "--to", to, "--secret", "s"],
    ["trigger", "github", "push", "--to", to, "--secret", "s", "--body-file", "body.json"],
    ["trigger", "github", "pull_request.opened", "--to", `${to}/fail`, "--secret", "s", "--json"],
    ["trigger", "stripe", "payment_intent.succeeded", "--to", to, "--secret", "whsec_c2VjcmV0"],
    ["trigger", "shopify", "orders/create", "--to", to, "--secret", "s"],
    ["trigger", "github", "nosuch", "--to", to],
    ["trigger", "nosuch", "push", "--to", to],
    ["trigger", "--list", "github"],
    // What a lean trigger bundle loads later, from chunks of its own build (scripts/pack.ts LEAN): the
    // config (dev's endpoint for the secret; a broken one's error and exit code), a fixture, the key pair.
    ["trigger", "github", "push", "--to", to],
    ["trigger", "github", "push", "--to", to, "-c", "bad.config.ts"],
    ["trigger", "github", "--fixture", "steps.json", "--to", to, "--secret", "s"],
    ["trigger", "discord", "PING", "--to", to],
    ["trigger", "--help"],
    ["inspect", first],
    ["inspect", last],
    ["inspect", ids.at(-2)!, "--json"],
    ["inspect", ids.at(-3)!],
    ["inspect", "evt_nosuch"],
    ["inspect"],
    ["replay", first, "--to", to],
    ["replay", last, "--to", `${to}/fail`, "--json"],
    ["replay", "evt_nosuch", "--to", to],
    ["export"],
    ["export", "--endpoint", "gh", "--format", "har"],
    ["export", "--bogus"],
  ];
  const denoDir = join(tmp.path, "deno_dir");
  // Durations, as text (`12 ms`) and as JSON (`"durationMs":4.2`): two runs agree on one only by chance.
  const msFree = (text: string) =>
    text.replace(/\b\d+(\.\d+)? ?ms\b/g, "N ms").replace(/"(\w+Ms)":\d+(\.\d+)?/g, '"$1":N').split("\n");
  let bundled = 0;
  for (const args of cases) {
    if (launcher.scriptOf(args) !== "main.js") bundled++;
    const what = `hooktap ${args.join(" ")}`;
    const runs: Out[] = [];
    const sent: string[][][] = [];
    // The packed run between the two checkout runs: a value of the clock (seconds, in a body and in the
    // signature over it) the two agree on is the packed run's too.
    for (const packed of [false, true, false]) {
      const before = sink.requests.length;
      runs.push(
        packed
          ? await output(launcher.denoArgs(lib, args, app), app, { DENO_DIR: denoDir })
          : await output(cliArgs(["-A"], args), app),
      );
      sent.push(sink.requests.slice(before).map(requestLines));
    }
    const [a, p, b] = runs as [Out, Out, Out];
    assert.equal(p.code, a.code, `${what}: exit code\n${p.stderr}`);
    sameWhereStable(`${what}: stdout`, msFree(a.stdout), msFree(b.stdout), msFree(p.stdout));
    sameWhereStable(`${what}: stderr`, msFree(a.stderr), msFree(b.stderr), msFree(p.stderr));
    assert.equal(sent[1]!.length, sent[0]!.length, `${what}: requests sent`);
    for (let i = 0; i < sent[0]!.length; i++) {
      sameWhereStable(`${what}: request ${i}`, sent[0]![i]!, sent[2]![i]!, sent[1]![i]!);
    }
  }
  assert.equal(bundled, cases.length, "every case runs a single-file bundle");
  // The cases are not empty: deliveries reached the sink, signed; a stored event printed; errors named.
  const github = sink.requests.filter((r) => r.headers.some(([n]) => n === "X-Hub-Signature-256"));
  assert.ok(github.length >= 6, `signed GitHub deliveries: ${github.length}`);
  const inspected = await output(launcher.denoArgs(lib, ["inspect", last], app), app);
  assert.match(inspected.stdout, new RegExp(last));
  const missing = await output(launcher.denoArgs(lib, ["trigger", "github", "nosuch", "--to", to], app), app);
  assert.notEqual(missing.code, 0);
  assert.match(missing.stderr, /nosuch/);
});
