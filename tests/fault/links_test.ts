/**
 * Issue 38, point 8: no file hooktap writes under `.hooktap/` follows a link. A symbolic link (and a hard
 * link) to a file outside is planted at every path of the data directory (src/store/paths.ts's
 * `dataFiles`, plus the temp names the old writers used), the code that writes that file runs, and the
 * outside file must be untouched. The real CLI runs for the trigger keys (dev with a Discord endpoint, and
 * `trigger`), two triggers at once must agree with the key file, and a source scan checks that only the one
 * data-directory writer (and the user-file writer) write files in `src/`.
 * @module
 */
import assert from "node:assert/strict";
import { basename, dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { runCli, startDev, withTmpDir } from "../_helpers.ts";
import { logText, makeEvents } from "../_store_fixture.ts";
import { dataFiles, type StorePaths, storePaths } from "../../src/store/paths.ts";
import { openEventWriter } from "../../src/store/write/writer.ts";
import { acquireWriterLock } from "../../src/store/write/lock.ts";
import { writeIndex } from "../../src/store/write/index_write.ts";
import { openUnmatchedLog } from "../../src/store/write/unmatched.ts";
import { openDeliveriesLog } from "../../src/send/deliveries_log.ts";
import { writeForwardState } from "../../src/send/state.ts";
import { loadTriggerKeys } from "../../src/trigger/keys.ts";
import { writeHubState } from "../../src/hub/cursor_file.ts";
import { configuredEndpointNames } from "../../src/completion/config_names.ts";
import { ensureDataDir } from "../../src/store/write/data_dir.ts";
import { compactLog } from "../../src/store/write/compact.ts";
import { writeTokenFiles } from "../../src/inspector/token_file.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SECRET = "the outside file: nobody may write it through .hooktap\n";

/** The code that writes each file of the data directory, as hooktap runs it. */
const WRITERS: Record<string, (paths: StorePaths) => Promise<unknown>> = {
  "events.jsonl": async (p) => await (await openEventWriter(p)).close(),
  "dev.lock": async (p) => (await acquireWriterLock(p)).release(),
  "index.json": (p) => writeIndex(p, { v: 1, size: 0, latest: {} }),
  "unmatched.jsonl": async (p) => await (await openUnmatchedLog(p)).close(),
  "deliveries.jsonl": async (p) => await (await openDeliveriesLog(p.deliveries)).close(),
  "forward_state.json": (p) => writeForwardState(p.forwardState, { v: 1, settledThrough: "evt_x" }),
  "trigger-keys.json": (p) => loadTriggerKeys(p.dir),
  "hub.json": (p) =>
    writeHubState(p, {
      v: 1,
      url: "https://hub.example/c/x",
      channel: "x",
      seq: 1,
      connected: true,
      waiting: 0,
      lastReceivedAt: null,
      updatedAt: new Date().toISOString(),
    }),
  "completion.json": (p) => configuredEndpointNames(dirname(p.dir)),
  ".gitignore": (p) => ensureDataDir(p),
  "events.jsonl.compact.tmp": (p) => compactLog(p, { keep: 1 }),
  "inspector-8788.token": (p) => tokenFiles(p),
  "inspector-8788.html": (p) => tokenFiles(p),
};

/** The inspector's token files, as it writes them at start (a problem is returned, not thrown). */
function tokenFiles(p: StorePaths): Promise<unknown> {
  const written = writeTokenFiles(p.dir, 8788, "t0ken", "http://127.0.0.1:8788/?token=t0ken");
  return "problem" in written ? Promise.reject(new Error(written.problem)) : Promise.resolve(written);
}

/** The outside file's bytes and mode (its link count drops when hooktap replaces the name planted in .hooktap). */
async function snapshot(path: string): Promise<{ text: string; mode: number | null }> {
  const info = await Deno.stat(path);
  return { text: await Deno.readTextFile(path), mode: info.mode };
}

/** A project with a config and a log of three events, and an outside file. */
async function project(root: string): Promise<{ paths: StorePaths; outside: string }> {
  const paths = storePaths(join(root, "project", ".hooktap"));
  await Deno.mkdir(paths.dir, { recursive: true, mode: 0o700 });
  await Deno.writeTextFile(
    join(root, "project", "hooktap.config.ts"),
    'export default { endpoints: [{ name: "a", path: "/a", method: "POST" }] };\n',
  );
  await Deno.writeTextFile(paths.events, logText(makeEvents(3)));
  const outside = join(root, "outside.txt");
  await Deno.writeTextFile(outside, SECRET);
  await Deno.chmod(outside, 0o644);
  return { paths, outside };
}

Deno.test("dataFiles names every file the writers here write (none left without a link test)", () => {
  const names = dataFiles(storePaths("/p/.hooktap")).map((f) => basename(f)).sort();
  assert.deepEqual(names, Object.keys(WRITERS).sort());
});

for (const kind of ["symbolic", "hard"] as const) {
  for (const name of Object.keys(WRITERS)) {
    // A hard link at the log's own path is the log itself (writing it is the job); the writers that open
    // an existing file refuse one with two names, the ones that replace a file replace only the name.
    Deno.test(`a ${kind} link planted at .hooktap/${name} (and its temp names) is never written through`, async () => {
      await using tmp = await withTmpDir("hooktap_links_");
      const { paths, outside } = await project(tmp.path);
      const path = join(paths.dir, name);
      await Deno.remove(path).catch(() => {});
      // The temp names writers used to use (pid-named, fixed) get links too, symbolic ones: a hard link
      // there would only be a file hooktap does not open.
      const temps = [`${path}.tmp`, `${path}.${Deno.pid}.tmp`];
      for (const t of temps) await Deno.symlink(outside, t);
      if (kind === "symbolic") await Deno.symlink(outside, path);
      else await Deno.link(outside, path);
      const before = await snapshot(outside);
      let error: unknown;
      try {
        await WRITERS[name]!(paths);
      } catch (e) {
        error = e;
      }
      assert.deepEqual(await snapshot(outside), before, `${outside} was changed through .hooktap/${name}`);
      const now = await Deno.lstat(path).catch(() => undefined);
      if (error === undefined && now !== undefined && kind === "symbolic") {
        assert.ok(
          !now.isSymlink,
          `.hooktap/${name}: no error, yet the link is still there (was it followed?)`,
        );
      }
      if (error !== undefined) assert.match(String(error), /link|rm /, String(error));
    });
  }
}

Deno.test("dev with a Discord endpoint and a link at .hooktap/trigger-keys.json stops with the fix; the target keeps its bytes", async () => {
  await using tmp = await withTmpDir("hooktap_links_");
  await Deno.writeTextFile(
    join(tmp.path, "hooktap.config.ts"),
    'export default { port: 0, endpoints: [{ name: "d", path: "/d", method: "POST", provider: "discord" }] };\n',
  );
  await Deno.mkdir(join(tmp.path, ".hooktap"), { mode: 0o700 });
  const outside = join(tmp.path, "outside.txt");
  await Deno.writeTextFile(outside, SECRET);
  await Deno.symlink(outside, join(tmp.path, ".hooktap", "trigger-keys.json"));
  let dev;
  try {
    dev = await startDev(tmp.path);
    // dev may start: it trusts the keys in the background; give it the time to try.
    const deadline = Date.now() + 5_000;
    while (!/trigger-keys\.json/.test(dev.stderr()) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
  } catch (error) {
    assert.match(String(error), /trigger-keys\.json is a symbolic link.*rm /s);
  } finally {
    await dev?.stop("SIGKILL");
  }
  assert.equal(await Deno.readTextFile(outside), SECRET, "the outside file was replaced by the private keys");
  const trigger = await runCli(["trigger", "discord", "PING", "--to", "http://127.0.0.1:9/"], {
    cwd: tmp.path,
    permissions: ["--allow-net", "--allow-read=.", "--allow-write=.hooktap", "--allow-env"],
  });
  assert.notEqual(trigger.code, 0);
  assert.match(trigger.stderr, /trigger-keys\.json is a symbolic link.*rm /s);
  assert.equal(await Deno.readTextFile(outside), SECRET, "trigger wrote the private keys through the link");
});

Deno.test("four triggers at once in a fresh directory all sign with the keys the key file holds", async () => {
  await using tmp = await withTmpDir("hooktap_links_");
  const keys: string[] = [];
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => Response.json({ type: 1 }), // Discord's PING wants a PONG back
  );
  const url = `http://127.0.0.1:${server.addr.port}/`;
  const runs = await Promise.all(
    Array.from({ length: 4 }, () =>
      runCli(["trigger", "discord", "PING", "--to", url], {
        cwd: tmp.path,
        permissions: ["--allow-net", "--allow-read=.", "--allow-write=.hooktap", "--allow-env"],
      })),
  );
  for (const r of runs) {
    assert.equal(r.code, 0, r.stderr);
    const m = r.stderr.match(/public key: ([0-9a-f]{64})/);
    assert.ok(m, r.stderr);
    keys.push(m[1]!);
  }
  const file = JSON.parse(await Deno.readTextFile(join(tmp.path, ".hooktap", "trigger-keys.json")));
  const filed = Uint8Array.fromBase64(file.ed25519.public).toHex();
  assert.deepEqual(keys, keys.map(() => filed), "a trigger signed with keys the file does not hold");
  assert.equal((await Deno.stat(join(tmp.path, ".hooktap", "trigger-keys.json"))).mode! & 0o777, 0o600);
  const left = [];
  for await (const e of Deno.readDir(join(tmp.path, ".hooktap"))) {
    if (e.name.endsWith(".tmp")) left.push(e.name);
  }
  assert.deepEqual(left, [], "temp files left behind");
});

/** Where `src/` writes files: every call that can create, change or open for writing. */
const WRITE_CALL =
  /Deno\.(writeTextFile|writeFile|create|mkdir|chmod|link|symlink|truncate|makeTempFile|makeTempDir)(Sync)?\(|Deno\.open(Sync)?\([^;]*?\b(write|append|create|truncate)\s*:/gs;

/** Files that may write with Deno's calls, and why. */
const ALLOWED: Record<string, string> = {
  "src/store/write/no_follow.ts": "the one writer of the data directory",
  "src/store/write/user_file.ts": "files the user names (export -o, --ready-file, init --force), outside it",
  "src/config/write.ts": "init's config, created exclusively (createNew) in the project",
  "src/commands/hub/run.ts": "the hub's KV directory (.hooktap-hub), not the data directory",
  "src/hub/kv_file.ts":
    "the hub's KV directory and its SQLite files made owner-only (not the data directory)",
  "src/testing/fixtures.ts": "the test library's fixture file, a path the caller names",
  "src/doctor/facts.ts": "opens the existing lock only to test it: no create, no truncate, no byte written",
};

Deno.test("only the data-directory writer (and the user-file writer) write files in src/", async () => {
  const found: string[] = [];
  const walk = async (dir: string) => {
    for await (const e of Deno.readDir(dir)) {
      const path = join(dir, e.name);
      if (e.isDirectory) await walk(path);
      else if (e.name.endsWith(".ts") && !e.name.endsWith("_test.ts") && !e.name.endsWith(".gen.ts")) {
        const text = await Deno.readTextFile(path);
        const name = relative(ROOT, path);
        for (const m of text.matchAll(WRITE_CALL)) {
          if (!(name in ALLOWED)) {
            found.push(`${name}:${text.slice(0, m.index).split("\n").length}: ${m[0].slice(0, 40)}`);
          }
        }
      }
    }
  };
  await walk(join(ROOT, "src"));
  assert.deepEqual(found, [], "write through src/store/write/no_follow.ts instead");
});
