/**
 * Links planted at the hub's KV paths (issue 38's rule for `.hooktap/`,
 * held for the hub's own `.hooktap-hub/`): a symbolic link at the default
 * directory, a symbolic or hard link at the database or at its `-wal` or
 * `-shm` file. `hooktap hub serve` refuses each with the fix, and the file or
 * directory outside keeps its bytes and its mode (before, the hub set the
 * target's mode and SQLite wrote through the link).
 * @module
 */
import assert from "node:assert/strict";
import { runCli, withTmpDir } from "../_helpers.ts";

const SERVE = ["--unstable-kv", "--allow-net", "--allow-read", "--allow-write", "--allow-env"];

async function serve(dir: string, kv?: string) {
  return await runCli(["hub", "serve", "--port", "0", ...(kv ? ["--kv", kv] : [])], {
    cwd: dir,
    permissions: SERVE,
    timeoutMs: 20_000,
  });
}

const mode = async (path: string) => (await Deno.stat(path)).mode! & 0o777;

Deno.test("hub serve: a symbolic link at .hooktap-hub is refused; the directory it points to keeps its mode and gets no file", async () => {
  await using tmp = await withTmpDir();
  const outside = `${tmp.path}/outside`;
  await Deno.mkdir(outside);
  await Deno.chmod(outside, 0o755);
  await Deno.mkdir(`${tmp.path}/project`);
  await Deno.symlink(outside, `${tmp.path}/project/.hooktap-hub`);
  const r = await serve(`${tmp.path}/project`);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /\.hooktap-hub is a symbolic link/);
  assert.match(r.stderr, /never through a link/);
  assert.doesNotMatch(r.stderr, /listening/);
  assert.equal(await mode(outside), 0o755, "the target's mode is unchanged");
  assert.deepEqual(await Array.fromAsync(Deno.readDir(outside)), [], "nothing written into it");
});

Deno.test("hub serve: a symbolic or hard link at the KV file or its -wal or -shm is refused; the file outside keeps its bytes and mode", async () => {
  await using tmp = await withTmpDir();
  const victim = `${tmp.path}/victim.txt`;
  for (const name of ["hub.sqlite", "hub.sqlite-wal", "hub.sqlite-shm"]) {
    for (const kind of ["symbolic", "hard"] as const) {
      await Deno.writeTextFile(victim, "precious\n");
      await Deno.chmod(victim, 0o644);
      const dir = `${tmp.path}/kv-${name}-${kind}`;
      await Deno.mkdir(dir, { mode: 0o700 });
      if (kind === "symbolic") await Deno.symlink(victim, `${dir}/${name}`);
      else await Deno.link(victim, `${dir}/${name}`);
      const r = await serve(tmp.path, `${dir}/hub.sqlite`);
      assert.equal(r.code, 1, `${name} (${kind}): ${r.stderr}`);
      assert.match(r.stderr, kind === "symbolic" ? /is a symbolic link/ : /is a hard link/, name);
      assert.equal(await Deno.readTextFile(victim), "precious\n", `${name} (${kind}): bytes kept`);
      assert.equal(await mode(victim), 0o644, `${name} (${kind}): mode kept`);
      await Deno.remove(dir, { recursive: true });
      await Deno.remove(victim);
    }
  }
});
