/**
 * Security: loopback by default, a warning for anything else, owner-only
 * files, and `hooktap dev` under the least-privilege flags writing nowhere
 * but `.hooktap`, not even through a link planted there.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { LEAST_PRIVILEGE, runCli, startDev, withTmpDir, writeFile } from "../_helpers.ts";
import { HttpConn } from "./_http.ts";
import { LOAD_CONFIG } from "./_load.ts";

/** Local addresses the process `pid` listens on, from /proc/PID/net/tcp{,6}. */
async function listeningOn(pid: number, port: number): Promise<string[]> {
  const found: string[] = [];
  for (const table of ["tcp", "tcp6"]) {
    const text = await Deno.readTextFile(`/proc/${pid}/net/${table}`).catch(() => "");
    for (const line of text.split("\n").slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (local === undefined || state !== "0A") continue; // 0A = LISTEN
      const [hex, p] = local.split(":");
      if (parseInt(p!, 16) !== port) continue;
      found.push(
        hex!.length === 8
          ? hex!.match(/../g)!.reverse().map((b) => parseInt(b, 16)).join(".") // little-endian IPv4
          : hex!,
      );
    }
  }
  return found;
}

async function post(port: number, body: string): Promise<number> {
  const conn = await HttpConn.open(port);
  try {
    return (await conn.request({ body })).status;
  } finally {
    conn.close();
  }
}

Deno.test({
  name: "`hooktap dev` binds loopback only by default, and says where it is bound",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using tmp = await withTmpDir();
    await writeFile(tmp.path, "hooktap.config.ts", LOAD_CONFIG);
    await using dev = await startDev(tmp.path, ["--quiet"]);
    assert.deepEqual(await listeningOn(dev.child.pid, dev.port), ["127.0.0.1"]);
    assert.match(dev.stderr(), /\(bound to 127\.0\.0\.1\)/);
    assert.doesNotMatch(dev.stderr(), /warning/);
  },
});

Deno.test("a non-loopback --host needs the flag and prints a warning; loopback names do not", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", LOAD_CONFIG);
  {
    await using dev = await startDev(tmp.path, ["--quiet", "--host", "0.0.0.0"]);
    assert.match(
      dev.stderr(),
      // --port 0 (startDev's): the port is not known yet; the next line names it.
      /warning: binding 0\.0\.0\.0: anyone who can reach this machine on the port dev picks can send events/,
    );
    assert.match(dev.stderr(), /\(bound to 0\.0\.0\.0\)/);
    assert.equal(await post(dev.port, "via 0.0.0.0 from loopback"), 200);
  }
  {
    await using dev = await startDev(tmp.path, ["--quiet", "--host", "localhost"]);
    assert.doesNotMatch(dev.stderr(), /warning/);
  }
});

Deno.test({
  name: "the data directory is owner-only (0700) and the event log and lock are owner read/write (0600)",
  ignore: Deno.build.os === "windows",
  async fn() {
    await using tmp = await withTmpDir();
    await writeFile(tmp.path, "hooktap.config.ts", LOAD_CONFIG);
    {
      await using dev = await startDev(tmp.path, ["--quiet"]);
      assert.equal(await post(dev.port, "secret payload"), 200);
    }
    const mode = async (p: string) => (await Deno.stat(join(tmp.path, p))).mode! & 0o777;
    assert.equal(await mode(".hooktap"), 0o700);
    assert.equal(await mode(".hooktap/events.jsonl"), 0o600);
    assert.equal(await mode(".hooktap/dev.lock"), 0o600);
    assert.match(await Deno.readTextFile(join(tmp.path, ".hooktap/.gitignore")), /^\*$/m);

    // Loosened by hand (or restored from a backup): tightened again at the next start.
    await Deno.chmod(join(tmp.path, ".hooktap"), 0o755);
    await Deno.chmod(join(tmp.path, ".hooktap/events.jsonl"), 0o644);
    {
      await using _dev = await startDev(tmp.path, ["--quiet"]);
    }
    assert.equal(await mode(".hooktap"), 0o700);
    assert.equal(await mode(".hooktap/events.jsonl"), 0o600);
  },
});

Deno.test("under --allow-net --allow-read=. --allow-write=.hooktap, dev stores events and writes nothing else", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", LOAD_CONFIG);
  const before = await snapshot(tmp.path);
  {
    await using dev = await startDev(tmp.path, [], { permissions: LEAST_PRIVILEGE });
    for (const path of ["/webhook", "/../../../../tmp/escape", "/webhook/../../etc/x", "/%2e%2e/%2e%2e/x"]) {
      const conn = await HttpConn.open(dev.port);
      await conn.request({ path, body: "../../escape" });
      conn.close();
    }
    assert.equal(await dev.stop(), 0);
  }
  const after = await snapshot(tmp.path);
  const changed = [...after].filter(([p, m]) => before.get(p) !== m).map(([p]) => p).sort();
  assert.ok(changed.every((p) => p.startsWith(".hooktap/") || p === ".hooktap"), `changed: ${changed}`);
  assert.ok(changed.includes(".hooktap/events.jsonl"));
});

Deno.test("a config cannot write outside .hooktap under the least-privilege flags either", async () => {
  await using tmp = await withTmpDir();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `Deno.writeTextFileSync("escape.txt", "written by the config");\nexport default {};`,
  );
  const result = await runCli(["dev", "--port", "0"], { cwd: tmp.path });
  assert.equal(result.code, 78);
  assert.match(result.stderr, /failed to load:[\s\S]*(NotCapable|Requires write access)/);
  await assert.rejects(Deno.stat(join(tmp.path, "escape.txt")));
});

for (const name of ["events.jsonl", "dev.lock"]) {
  Deno.test(`a symbolic link planted at .hooktap/${name} is refused: dev writes nothing through it`, async () => {
    await using tmp = await withTmpDir();
    await writeFile(tmp.path, "hooktap.config.ts", LOAD_CONFIG);
    const victim = await writeFile(tmp.path, "victim.txt", "precious\n");
    await Deno.chmod(victim, 0o644);
    await Deno.mkdir(join(tmp.path, ".hooktap"));
    await Deno.symlink("../victim.txt", join(tmp.path, ".hooktap", name));
    const result = await runCli(["dev", "--port", "0"], { cwd: tmp.path });
    assert.equal(result.code, 1, result.stderr);
    assert.match(
      result.stderr,
      new RegExp(`error: .*\\.hooktap/${name.replace(".", "\\.")} is a symbolic link`),
    );
    assert.match(result.stderr, /never follows links there/);
    assert.equal(await Deno.readTextFile(victim), "precious\n", "the link's target is untouched");
    assert.equal((await Deno.stat(victim)).mode! & 0o777, 0o644, "and keeps its mode");
  });
}

Deno.test("a data directory that is a symbolic link is refused", async () => {
  await using tmp = await withTmpDir();
  await using elsewhere = await withTmpDir();
  await Deno.chmod(elsewhere.path, 0o755);
  await writeFile(tmp.path, "hooktap.config.ts", LOAD_CONFIG);
  await Deno.symlink(elsewhere.path, join(tmp.path, ".hooktap"));
  const result = await runCli(["dev", "--port", "0"], { cwd: tmp.path, permissions: ["-A"] });
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stderr, /The data directory .*\.hooktap is a symbolic link/);
  assert.deepEqual([...Deno.readDirSync(elsewhere.path)], [], "nothing was written where it points");
  assert.equal((await Deno.stat(elsewhere.path)).mode! & 0o777, 0o755, "its mode is untouched");
});

/** path → "size:mtime" of every entry under dir. */
async function snapshot(dir: string, prefix = ""): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for await (const entry of Deno.readDir(join(dir, prefix))) {
    const rel = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    const info = await Deno.lstat(join(dir, rel));
    out.set(rel, `${info.size}:${info.mtime?.getTime()}`);
    if (entry.isDirectory) { for (const [k, v] of await snapshot(dir, rel)) out.set(k, v); }
  }
  return out;
}
