/**
 * The ways in, end to end: the packed npm package installed with npm (globally into a temp prefix, and as a
 * project's dev dependency run through npx) on a PATH with Node and no Deno, and `deno task install` into a
 * temp install root. Each runs in a real Node project (package.json of type module, node_modules,
 * tsconfig.json): init (with --yes and interactively in a pty), dev --json, a POST, logs, inspect, and
 * Ctrl-C to the process group, as a terminal sends it.
 * @module
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL as toFileUrl } from "node:url";
import { verify } from "@octokit/webhooks-methods";
import { HAS_SCRIPT } from "./_pty.ts";
import { cleanEnv, which, withTmpDir } from "./_helpers.ts";

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const HOME = Deno.env.get("HOME") ?? "/root";

const NPM = await which("npm");
const NODE = await which("node");
const HAS_NODE = NPM !== undefined && NODE !== undefined;
// Found on the test's own PATH: the flows run on a PATH that holds little besides hooktap.
const SETSID = await which("setsid") ?? "setsid";
const SCRIPT = await which("script") ?? "script";
const STTY = await which("stty") ?? "stty";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(cmd: string, args: string[], cwd: string, path: string): Promise<Run> {
  const out = await new Deno.Command(cmd, {
    args,
    cwd,
    clearEnv: true,
    env: cleanEnv({ PATH: path, HOME, NO_COLOR: "1", npm_config_update_notifier: "false" }),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** A directory of links to node, npm, npx and sh only (npm runs scripts with sh): a PATH with no Deno. */
async function nodeOnlyBin(dir: string): Promise<string> {
  const bin = join(dir, "node-only-bin");
  await Deno.mkdir(bin);
  for (const name of ["node", "npm", "npx", "sh"]) {
    const target = await which(name);
    if (target !== undefined) await Deno.symlink(await Deno.realPath(target), join(bin, name));
  }
  return bin;
}

/** A real Node project: package.json of type module, node_modules, tsconfig.json. */
async function nodeProject(dir: string): Promise<string> {
  await Deno.mkdir(join(dir, "node_modules", "left-pad"), { recursive: true });
  await Deno.writeTextFile(
    join(dir, "package.json"),
    '{ "name": "app", "private": true, "type": "module" }\n',
  );
  await Deno.writeTextFile(join(dir, "node_modules", "left-pad", "package.json"), '{ "name": "left-pad" }\n');
  await Deno.writeTextFile(join(dir, "tsconfig.json"), '{ "compilerOptions": { "strict": true } }\n');
  return dir;
}

let packed: Promise<string> | undefined;
/** `deno task pack`, once for the file; resolves to the tgz. */
function packOnce(): Promise<string> {
  packed ??= (async () => {
    // A directory of this run's own: another test file packing at the same time never writes this tgz.
    const dist = await Deno.makeTempDir({ prefix: "hooktap_dist_" });
    const out = await run(
      Deno.execPath(),
      ["task", "--quiet", "pack", "--out-dir", dist],
      ROOT,
      Deno.env.get("PATH") ?? "",
    );
    assert.equal(out.code, 0, out.stderr);
    const files = [...Deno.readDirSync(dist)].map((e) => e.name);
    const version = JSON.parse(Deno.readTextFileSync(join(ROOT, "deno.json"))).version;
    assert.ok(files.includes(`hooktap-${version}.tgz`), `the pack directory holds ${files}`);
    return join(dist, `hooktap-${version}.tgz`);
  })();
  return packed;
}

const NPM_FLAGS = ["--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"];

/** `hooktap dev --json` in its own process group (as a shell starts a job), its ready object read. */
async function startDevGroup(hooktap: string[], cwd: string, path: string) {
  const child = new Deno.Command(SETSID, {
    args: [...hooktap, "dev", "--json", "--port", "0"],
    cwd,
    clearEnv: true,
    env: cleanEnv({ PATH: path, HOME, NO_COLOR: "1" }),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const out = { text: "" };
  const err = { text: "" };
  const pump = async (stream: ReadableStream<Uint8Array>, sink: { text: string }) => {
    const dec = new TextDecoder();
    for await (const chunk of stream) sink.text += dec.decode(chunk, { stream: true });
  };
  const pumps = Promise.all([pump(child.stdout, out), pump(child.stderr, err)]);
  const deadline = Date.now() + 30_000;
  while (!out.text.includes("\n")) {
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`no ready line:\n${err.text}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  const ready = JSON.parse(out.text.split("\n")[0]!) as { type: string; port: number; url: string };
  assert.equal(ready.type, "ready");
  return {
    ready,
    pid: child.pid,
    /** Ctrl-C as a terminal sends it: SIGINT to every process of the group. */
    async interrupt(): Promise<{ code: number; signal: Deno.Signal | null; stderr: string; stdout: string }> {
      Deno.kill(-child.pid, "SIGINT");
      const status = await child.status;
      await pumps;
      return { code: status.code, signal: status.signal, stderr: err.text, stdout: out.text };
    },
    /** SIGINT to the command's own pid only, as a process manager sends it. */
    async interruptPid(): Promise<
      { code: number; signal: Deno.Signal | null; stderr: string; stdout: string }
    > {
      Deno.kill(child.pid, "SIGINT");
      const status = await child.status;
      await pumps;
      return { code: status.code, signal: status.signal, stderr: err.text, stdout: out.text };
    },
    async [Symbol.asyncDispose]() {
      try {
        Deno.kill(-child.pid, "SIGKILL");
      } catch { /* gone */ }
      await child.status;
      await pumps;
    },
  };
}

/**
 * `hooktap hub serve --port 0` (KV in `kvDir`; without it, its default `.hooktap-hub/` of `cwd`) in its own
 * process group, its URL read from the banner.
 */
async function startHubGroup(hooktap: string[], cwd: string, path: string, kvDir?: string) {
  const kv = kvDir === undefined ? [] : ["--kv", join(kvDir, "hub.kv")];
  const child = new Deno.Command(SETSID, {
    args: [...hooktap, "hub", "serve", "--port", "0", ...kv, "--admin-token", "adm"],
    cwd,
    clearEnv: true,
    env: cleanEnv({ PATH: path, HOME, NO_COLOR: "1" }),
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let err = "";
  const pump = (async () => {
    const dec = new TextDecoder();
    for await (const chunk of child.stderr) err += dec.decode(chunk, { stream: true });
  })();
  const deadline = Date.now() + 30_000;
  let url: string | undefined;
  while ((url = /listening on (http\S+)/.exec(err)?.[1]) === undefined) {
    if (Date.now() > deadline || /error/i.test(err)) {
      try {
        child.kill("SIGKILL");
      } catch { /* it exited */ }
      await pump;
      throw new Error(`hub serve did not start:\n${err}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    url,
    async [Symbol.asyncDispose]() {
      try {
        Deno.kill(-child.pid, "SIGKILL");
      } catch { /* gone */ }
      await child.status;
      await pump;
    },
  };
}

/** `hooktap init` in a pty, every question answered with its default (Enter). */
async function interactiveInit(
  hooktap: string[],
  cwd: string,
  path: string,
): Promise<{ code: number; screen: string }> {
  const quote = (w: string) => `'${w.replaceAll("'", `'\\''`)}'`;
  const child = new Deno.Command(SCRIPT, {
    args: ["-qec", `${STTY} cols 80 rows 40; exec ${[...hooktap, "init"].map(quote).join(" ")}`, "/dev/null"],
    cwd,
    clearEnv: true,
    env: cleanEnv({ PATH: path, HOME, TERM: "xterm" }),
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  let screen = "";
  const pump = (async () => {
    const dec = new TextDecoder();
    for await (const chunk of child.stdout) screen += dec.decode(chunk, { stream: true });
  })();
  let done = false;
  const status = child.status.then((s) => (done = true, s));
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const deadline = Date.now() + 30_000;
  // Each question is answered with Enter, typed again until the next one shows (a key typed before the
  // prompt reads the terminal raw can be lost).
  const steps = ["Port to listen on", "Endpoint name", "Endpoint path", "HTTP method", "Config ready"];
  let from = 0;
  for (let i = 0; i + 1 < steps.length && !done && Date.now() < deadline; i++) {
    while (!done && !screen.includes(steps[i]!, from) && Date.now() < deadline) await sleep(20);
    from = screen.indexOf(steps[i]!, from);
    while (!done && !screen.includes(steps[i + 1]!, from) && Date.now() < deadline) {
      await sleep(300);
      await writer.write(new TextEncoder().encode("\r"));
      for (let waited = 0; waited < 3000 && !screen.includes(steps[i + 1]!, from); waited += 20) {
        await sleep(20);
      }
    }
  }
  while (!done && Date.now() < deadline) await sleep(20);
  if (!done) child.kill("SIGKILL"); // never hang the suite on a prompt that did not answer
  const s = await status;
  await pump;
  await writer.close().catch(() => {});
  return { code: s.code, screen };
}

/** The flow a new user follows in their own project, with `hooktap` being the `hooktap` words to run. */
async function firstRun(hooktap: string[], project: string, path: string, viaNpx = false): Promise<void> {
  const init = await run(hooktap[0]!, [...hooktap.slice(1), "init", "--yes"], project, path);
  assert.equal(init.code, 0, init.stderr);
  assert.match(init.stderr, /Wrote hooktap\.config\.ts/);

  await using dev = await startDevGroup(hooktap, project, path);
  const answer = await fetch(`${dev.ready.url}/webhook`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: '{"hello":"hooktap"}',
  });
  const { id } = await answer.json() as { id: string };
  assert.equal(answer.status, 200);

  const logs = await run(hooktap[0]!, [...hooktap.slice(1), "logs", "--json"], project, path);
  assert.equal(logs.code, 0, logs.stderr);
  assert.equal(JSON.parse(logs.stdout.trim()).id, id);

  const inspect = await run(
    hooktap[0]!,
    [...hooktap.slice(1), "inspect", "--endpoint", "default"],
    project,
    path,
  );
  assert.equal(inspect.code, 0, inspect.stderr);
  assert.match(inspect.stdout, new RegExp(id));
  assert.match(inspect.stdout, /"hello": "hooktap"/);

  const unknown = await run(hooktap[0]!, [...hooktap.slice(1), "inspect", "evt_nosuch"], project, path);
  assert.notEqual(unknown.code, 0, "the CLI's own exit code comes through");
  const usage = await run(hooktap[0]!, [...hooktap.slice(1), "logs", "--bogus"], project, path);
  assert.equal(usage.code, 2, usage.stderr);

  // trigger finds the running dev and sends to it (the installed command has the network).
  const trigger = await run(hooktap[0]!, [...hooktap.slice(1), "trigger", "github", "push"], project, path);
  assert.equal(trigger.code, 0, trigger.stdout + trigger.stderr);
  assert.match(trigger.stdout + trigger.stderr, /200/);

  // prune and rm while dev runs: they ask dev over .hooktap/control.sock (issue 33.6).
  const rm = await run(hooktap[0]!, [...hooktap.slice(1), "rm", id, "--yes"], project, path);
  assert.equal(rm.code, 0, rm.stdout + rm.stderr);
  const prune = await run(hooktap[0]!, [...hooktap.slice(1), "prune", "--keep", "1"], project, path);
  assert.equal(prune.code, 0, prune.stdout + prune.stderr);
  assert.doesNotMatch(rm.stderr + prune.stderr, /Requires|allow-net/);

  const stopped = await dev.interrupt();
  assert.match(stopped.stderr, /Stopped\./);
  if (viaNpx) {
    // npx runs the bin through `sh -c`, which dies of the group's SIGINT at once: npx then exits 130 whatever
    // hooktap does. hooktap itself still stops cleanly and prints its summary (asserted below).
    assert.ok(stopped.code === 0 || stopped.code === 130, `npx exited ${stopped.code}`);
  } else {
    assert.equal(stopped.signal, null);
    assert.equal(stopped.code, 0, stopped.stderr);
  }
  assert.match(stopped.stderr, /Stopped\. 2 events captured this session/);
}

Deno.test({
  name:
    "the npm package installed globally with only Node on the PATH: init, dev, a POST, logs, inspect, Ctrl-C",
  ignore: !HAS_NODE,
  async fn() {
    const tgz = await packOnce();
    await using tmp = await withTmpDir("hooktap_npm_");
    const bin = await nodeOnlyBin(tmp.path);
    const prefix = join(tmp.path, "prefix");
    const install = await run(NPM!, ["install", "-g", "--prefix", prefix, ...NPM_FLAGS, tgz], tmp.path, bin);
    assert.equal(install.code, 0, install.stderr);
    const path = `${join(prefix, "bin")}:${bin}`;
    assert.notEqual(
      (await run("/bin/sh", ["-c", "command -v deno"], tmp.path, path)).code,
      0,
      "deno is on the PATH",
    );

    // npm ran the postinstall: the bin is the shell launcher, which runs Deno with no Node process.
    const bin_ = await Deno.readTextFile(join(prefix, "bin", "hooktap"));
    assert.match(bin_, /^#!\/bin\/sh\n/);
    const project = await nodeProject(join(tmp.path, "app"));
    await firstRun([join(prefix, "bin", "hooktap")], project, path);

    // A SIGINT to the command's own pid (a process manager's stop) stops dev with its summary.
    await using dev = await startDevGroup([join(prefix, "bin", "hooktap")], project, path);
    if (Deno.build.os === "linux") {
      // The command's pid is Deno's (the shell launcher execs it), told how the user runs hooktap.
      const environ = (await Deno.readTextFile(`/proc/${dev.pid}/environ`)).split("\0");
      assert.ok(environ.includes("HOOKTAP_INVOKED_AS=hooktap"), environ.join(" "));
      assert.match(await Deno.readTextFile(`/proc/${dev.pid}/cmdline`), /deno\0run\0/);
    }
    const stopped = await dev.interruptPid();
    assert.equal(stopped.signal, null);
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.match(stopped.stderr, /Stopped\./);

    if (HAS_SCRIPT) {
      const fresh = await nodeProject(join(tmp.path, "app2"));
      const init = await interactiveInit([join(prefix, "bin", "hooktap")], fresh, path);
      assert.equal(init.code, 0, init.screen);
      assert.match(init.screen, /Config ready/);
      assert.match(await Deno.readTextFile(join(fresh, "hooktap.config.ts")), /port: 8787/);
    }
  },
});

Deno.test({
  name:
    "npm install -g --ignore-scripts keeps the Node launcher: it runs, Ctrl-C and a SIGINT to its pid stop dev",
  ignore: !HAS_NODE,
  async fn() {
    const tgz = await packOnce();
    await using tmp = await withTmpDir("hooktap_npm_noscripts_");
    const bin = await nodeOnlyBin(tmp.path);
    const prefix = join(tmp.path, "prefix");
    const install = await run(
      NPM!,
      ["install", "-g", "--ignore-scripts", "--prefix", prefix, ...NPM_FLAGS, tgz],
      tmp.path,
      bin,
    );
    assert.equal(install.code, 0, install.stderr);
    const hooktap = join(prefix, "bin", "hooktap");
    assert.match(await Deno.readTextFile(hooktap), /^#!\/usr\/bin\/env node\n/);
    const path = `${join(prefix, "bin")}:${bin}`;
    const project = await nodeProject(join(tmp.path, "app"));
    const init = await run(hooktap, ["init", "--yes"], project, path);
    assert.equal(init.code, 0, init.stderr);
    const usage = await run(hooktap, ["logs", "--bogus"], project, path);
    assert.equal(usage.code, 2, usage.stderr);

    // Ctrl-C reaches the launcher and Deno both; Deno takes the forwarded copy as the same interrupt.
    {
      await using dev = await startDevGroup([hooktap], project, path);
      const stopped = await dev.interrupt();
      assert.equal(stopped.signal, null);
      assert.equal(stopped.code, 0, stopped.stderr);
      assert.match(stopped.stderr, /Stopped\./);
    }
    // A SIGINT to the launcher's pid alone is forwarded.
    {
      await using dev = await startDevGroup([hooktap], project, path);
      const stopped = await dev.interruptPid();
      assert.equal(stopped.signal, null);
      assert.equal(stopped.code, 0, stopped.stderr);
      assert.match(stopped.stderr, /Stopped\./);
    }
  },
});

Deno.test({
  name: "npm install -D of the package, then npx hooktap: init types the config from hooktap, and it loads",
  ignore: !HAS_NODE,
  async fn() {
    const tgz = await packOnce();
    await using tmp = await withTmpDir("hooktap_npx_");
    const bin = await nodeOnlyBin(tmp.path);
    const project = await nodeProject(join(tmp.path, "app"));
    const install = await run(NPM!, ["install", "-D", ...NPM_FLAGS, tgz], project, bin);
    assert.equal(install.code, 0, install.stderr);
    assert.match(await Deno.readTextFile(join(project, "node_modules", ".bin", "hooktap")), /^#!\/bin\/sh\n/);
    await firstRun([join(bin, "npx"), "hooktap"], project, bin, true);
    const config = await Deno.readTextFile(join(project, "hooktap.config.ts"));
    assert.match(config, /^import type \{ Config \} from "hooktap";/);
    assert.match(config, /satisfies Config;/);

    // A value import of the package loads too: the launcher maps "hooktap" to the package's own copy.
    await Deno.writeTextFile(
      join(project, "hooktap.config.ts"),
      'import { defineConfig } from "hooktap";\nexport default defineConfig({ port: 0, endpoints: [{ name: "x", path: "/x", method: "POST" }] });\n',
    );
    const logs = await run(join(bin, "npx"), ["hooktap", "logs", "--endpoint", "x"], project, bin);
    assert.equal(logs.code, 0, logs.stderr);
    assert.doesNotMatch(logs.stderr, /does not load|failed to load/);

    // A config imports what a Node project's modules import: a package from node_modules (as
    // `import "dotenv/config"` does) and a CommonJS helper (a folder of "type": "commonjs", npm init's default).
    await Deno.mkdir(join(project, "node_modules", "secrets-pkg"), { recursive: true });
    await Deno.writeTextFile(
      join(project, "node_modules", "secrets-pkg", "package.json"),
      '{ "name": "secrets-pkg", "type": "module", "exports": "./index.js" }\n',
    );
    await Deno.writeTextFile(
      join(project, "node_modules", "secrets-pkg", "index.js"),
      'export const name = "from-package";\n',
    );
    await Deno.mkdir(join(project, "cjs"));
    await Deno.writeTextFile(join(project, "cjs", "package.json"), '{ "type": "commonjs" }\n');
    await Deno.writeTextFile(join(project, "cjs", "paths.js"), 'exports.path = "/from-cjs";\n');
    await Deno.writeTextFile(
      join(project, "hooktap.config.ts"),
      'import { name } from "secrets-pkg";\nimport { path } from "./cjs/paths.js";\n' +
        'export default { port: 0, endpoints: [{ name, path, method: "POST" }] };\n',
    );
    const imports = await run(
      join(bin, "npx"),
      ["hooktap", "logs", "--endpoint", "from-package"],
      project,
      bin,
    );
    assert.equal(imports.code, 0, imports.stderr);
    assert.doesNotMatch(imports.stderr, /does not load|failed to load/);

    // hub serve runs from the package (Deno KV, its --kv directory outside the project) and creates a channel.
    await using hub = await startHubGroup([join(bin, "npx"), "hooktap"], project, bin, join(tmp.path, "kv"));
    const channel = await run(
      join(bin, "npx"),
      ["hooktap", "hub", "channel", "create", "--hub", hub.url, "--admin-token", "adm", "--json"],
      project,
      bin,
    );
    assert.equal(channel.code, 0, channel.stderr);
    assert.match(JSON.parse(channel.stdout).url, /\/c\//);
  },
});

/**
 * One `trigger github push --to <sink> --secret s` with `hooktap` (its own bundle's signing path): the sink
 * gets GitHub's push, signed as GitHub signs it (checked with @octokit/webhooks-methods).
 */
async function signedTrigger(hooktap: string, cwd: string, path: string): Promise<void> {
  const got: { body: string; signature: string | null; event: string | null }[] = [];
  await using sink = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (request) => {
    got.push({
      body: await request.text(),
      signature: request.headers.get("x-hub-signature-256"),
      event: request.headers.get("x-github-event"),
    });
    return new Response("ok");
  });
  const to = `http://127.0.0.1:${sink.addr.port}/hook`;
  const sent = await run(hooktap, ["trigger", "github", "push", "--to", to, "--secret", "s"], cwd, path);
  assert.equal(sent.code, 0, sent.stdout + sent.stderr);
  assert.equal(got.length, 1);
  assert.equal(got[0]!.event, "push");
  assert.ok(
    await verify("s", got[0]!.body, got[0]!.signature ?? ""),
    "GitHub's library verifies the signature",
  );
}

Deno.test({
  name:
    "deno task install into a temp root gives a hooktap that works from any directory, interactive init included",
  async fn() {
    await using tmp = await withTmpDir("hooktap_install_");
    const root = join(tmp.path, "root");
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["task", "--quiet", "install"],
      cwd: ROOT,
      env: { DENO_INSTALL_ROOT: root },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    const shim = join(root, "bin", "hooktap");
    const path = `${join(root, "bin")}:${dirname(Deno.execPath())}:/usr/bin:/bin`;
    // The shim runs the bundled CLI (the npm package's lib/, built by scripts/deno_install.ts), not main.ts:
    // from source, Deno transpiles ~40 modules at every start.
    const text = await Deno.readTextFile(shim);
    const entry = /'(file:\/\/[^']+)' "\$@"/.exec(text)?.[1];
    assert.equal(entry, toFileUrl(join(ROOT, "dist", "deno_install", "lib", "hooktap.js")).href, text);
    assert.match(text, /--v8-flags=--max-semi-space-size=8,--no-lazy /);
    // What the clone's deno.json gave the shim of main.ts ("unstable": ["kv"]): `hub serve` keeps Deno KV.
    assert.match(text, /--unstable-kv /);
    const empty = join(tmp.path, "empty");
    await Deno.mkdir(empty);
    const version = await run(shim, ["--version"], empty, path);
    assert.equal(version.code, 0, version.stderr);
    assert.equal(version.stdout.trim(), JSON.parse(await Deno.readTextFile(join(ROOT, "deno.json"))).version);
    await signedTrigger(shim, empty, path);
    // `hub serve` keeps its Deno KV in its default .hooktap-hub/ of the directory it runs in.
    {
      await using hub = await startHubGroup([shim], empty, path);
      assert.match(hub.url, /^http:/);
    }
    assert.equal((await Deno.stat(join(empty, ".hooktap-hub"))).isDirectory, true);
    // A config that imports defineConfig from the package, by its JSR name or its npm name.
    for (const name of ["@hooktap/hooktap", "hooktap"]) {
      const dir = join(tmp.path, `config-${name.replace(/\W/g, "")}`);
      await Deno.mkdir(dir);
      await Deno.writeTextFile(
        join(dir, "hooktap.config.ts"),
        `import { defineConfig } from "${name}";\nexport default defineConfig({ port: 0, ` +
          `endpoints: [{ name: "gh", path: "/gh", method: "POST", provider: "github", secret: "s3" }] });\n`,
      );
      await using dev = await startDevGroup([shim], dir, path);
      assert.equal(dev.ready.port > 0, true);
      const sent = await run(shim, ["trigger", "github", "push"], dir, path);
      assert.equal(sent.code, 0, sent.stdout + sent.stderr);
      assert.match(sent.stdout + sent.stderr, /signed with the secret[\s\S]*200/);
      const logs = await run(shim, ["logs", "--json"], dir, path);
      assert.equal(logs.code, 0, logs.stderr);
      assert.equal(JSON.parse(logs.stdout.trim()).verdict?.status, "valid", logs.stdout);
      const stopped = await dev.interrupt();
      assert.equal(stopped.code, 0, stopped.stderr);
    }
    const project = await nodeProject(join(tmp.path, "app"));
    // A project deno.json that would break hooktap if it were read.
    await Deno.writeTextFile(
      join(project, "deno.json"),
      '{ "imports": { "@clack/prompts": "./nope.js" } }\n',
    );
    await firstRun([shim], project, path);

    if (HAS_SCRIPT) {
      const fresh = await nodeProject(join(tmp.path, "app2"));
      const init = await interactiveInit([shim], fresh, path);
      assert.equal(init.code, 0, init.screen);
      assert.match(init.screen, /Config ready/);
    }
  },
});
