/**
 * Issue 38, point 9: misuse that would destroy the store, through the real CLI. A ready file in `.hooktap`
 * (or a hard link of the log), `export -o` onto a hard link of the log with the npm package's exact-file
 * permission, and `init --force` through a config that is a link to a file outside the project: each is
 * refused with the fix, and the log (or the outside file) keeps every byte.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli, startDev, withTmpDir, writeFile } from "../_helpers.ts";
import { logText, makeEvents } from "../_store_fixture.ts";

const CONFIG = 'export default { port: 0, endpoints: [{ name: "w", path: "/webhook", method: "POST" }] };\n';

/** A project with a 20-event log; returns the log's text. */
async function project(dir: string): Promise<string> {
  await writeFile(dir, "hooktap.config.ts", CONFIG);
  await Deno.mkdir(join(dir, ".hooktap"), { mode: 0o700 });
  const text = logText(makeEvents(20));
  await Deno.writeTextFile(join(dir, ".hooktap", "events.jsonl"), text);
  return text;
}

const log = (dir: string) => Deno.readTextFile(join(dir, ".hooktap", "events.jsonl"));

/** The npm package's flags for dev (src of truth: npm/hooktap.cjs), widened to the ready file. */
const npmDev = (
  ready: string,
) => ["--allow-net", "--allow-read=.", "--allow-env", `--allow-write=.hooktap,hooktap.config.ts,${ready}`];

for (
  const ready of [
    ".hooktap/events.jsonl",
    ".hooktap/../.hooktap/ready.json",
    "ready.json (a hard link of the log)",
  ]
) {
  for (const flags of ["npm", "broad"] as const) {
    Deno.test(`dev --ready-file ${ready} is refused before it listens, the log intact (${flags} permissions)`, async () => {
      await using tmp = await withTmpDir("hooktap_misuse_");
      const before = await project(tmp.path);
      let path = ready;
      if (ready.startsWith("ready.json")) {
        path = "ready.json";
        await Deno.link(join(tmp.path, ".hooktap", "events.jsonl"), join(tmp.path, "ready.json"));
      }
      const permissions = flags === "npm" ? npmDev(path) : ["-A"];
      let started;
      try {
        started = await startDev(tmp.path, ["--ready-file", path], { permissions });
      } catch (error) {
        assert.match(String(error), /exit 2/);
        assert.match(
          String(error),
          /--ready-file .* (is inside|is another name \(a hard link\) of a file in) hooktap's data directory/,
        );
        assert.match(String(error), /Write somewhere else, like --ready-file ready\.json/);
      } finally {
        await started?.stop("SIGKILL");
      }
      assert.equal(started, undefined, "dev started with its ready file on the store");
      assert.equal(await log(tmp.path), before, "the event log changed");
    });
  }
}

for (const flags of ["npm", "broad"] as const) {
  Deno.test(`export -o onto a hard link of the log is refused and the log keeps its 20 events (${flags} permissions)`, async () => {
    await using tmp = await withTmpDir("hooktap_misuse_");
    const before = await project(tmp.path);
    await Deno.link(join(tmp.path, ".hooktap", "events.jsonl"), join(tmp.path, "copy.jsonl"));
    const permissions = flags === "npm"
      ? ["--allow-read=.", "--allow-write=.hooktap,copy.jsonl", "--allow-env"]
      : ["--allow-read", "--allow-write", "--allow-env"];
    const r = await runCli(["export", "-o", "copy.jsonl"], { cwd: tmp.path, permissions });
    assert.notEqual(r.code, 0, r.stderr);
    assert.match(
      r.stderr,
      /--output \S*copy\.jsonl is another name \(a hard link\) of a file in hooktap's data directory/s,
    );
    assert.equal(await log(tmp.path), before, "the event log changed");
    assert.equal((await log(tmp.path)).split("\n").filter((l) => l !== "").length, 20);
    // Elsewhere is fine, and an existing file of one name is replaced whole, owner-only.
    await Deno.writeTextFile(
      join(tmp.path, "out.jsonl"),
      "old content that is longer than nothing at all\n".repeat(500),
    );
    const ok = await runCli(["export", "-o", "out.jsonl"], {
      cwd: tmp.path,
      permissions: flags === "npm"
        ? ["--allow-read=.", "--allow-write=.hooktap,out.jsonl", "--allow-env"]
        : permissions,
    });
    assert.equal(ok.code, 0, ok.stderr);
    const out = await Deno.readTextFile(join(tmp.path, "out.jsonl"));
    assert.equal(out.split("\n").filter((l) => l !== "").length, 20);
    assert.ok(!out.includes("old content"));
    assert.equal((await Deno.stat(join(tmp.path, "out.jsonl"))).mode! & 0o777, 0o600);
  });
}

Deno.test("export -o onto a symbolic link, with only that path writable, is refused and the target untouched", async () => {
  await using tmp = await withTmpDir("hooktap_misuse_");
  await project(tmp.path);
  await Deno.writeTextFile(join(tmp.path, "elsewhere.txt"), "keep me\n");
  await Deno.symlink(join(tmp.path, "elsewhere.txt"), join(tmp.path, "out.jsonl"));
  const r = await runCli(["export", "-o", "out.jsonl"], {
    cwd: tmp.path,
    permissions: ["--allow-read=.", "--allow-write=.hooktap,out.jsonl", "--allow-env"],
  });
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /out\.jsonl is a symbolic link/);
  assert.equal(await Deno.readTextFile(join(tmp.path, "elsewhere.txt")), "keep me\n");
});

for (const flags of ["npm", "broad"] as const) {
  Deno.test(`init --force through a config that links outside the project is refused; the target untouched (${flags})`, async () => {
    await using outside = await withTmpDir("hooktap_outside_");
    await using tmp = await withTmpDir("hooktap_misuse_");
    const target = join(outside.path, "shared.ts");
    await Deno.writeTextFile(target, "// not hooktap's\nexport const x = 1;\n");
    await Deno.symlink(target, join(tmp.path, "hooktap.config.ts"));
    const permissions = flags === "npm"
      ? ["--allow-read=.", "--allow-env", "--allow-write=hooktap.config.ts"]
      : ["--allow-read", "--allow-write", "--allow-env"];
    const r = await runCli(["init", "--yes", "--force"], { cwd: tmp.path, permissions });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /hooktap\.config\.ts is a symbolic link .*never writes through a link.*rm /s);
    assert.equal(await Deno.readTextFile(target), "// not hooktap's\nexport const x = 1;\n");
    assert.ok(
      (await Deno.lstat(join(tmp.path, "hooktap.config.ts"))).isSymlink,
      "the link itself is left alone",
    );
    // A regular config is replaced, with either permission.
    await Deno.remove(join(tmp.path, "hooktap.config.ts"));
    await Deno.writeTextFile(join(tmp.path, "hooktap.config.ts"), "// old\n");
    const ok = await runCli(["init", "--yes", "--force"], { cwd: tmp.path, permissions });
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(await Deno.readTextFile(join(tmp.path, "hooktap.config.ts")), /defineConfig|endpoints/);
  });
}

Deno.test("init --force --config onto the event log (or a hard link of it) is refused; the log intact", async () => {
  await using tmp = await withTmpDir("hooktap_misuse_");
  const before = await project(tmp.path);
  await Deno.link(join(tmp.path, ".hooktap", "events.jsonl"), join(tmp.path, "linked.ts"));
  for (const target of [".hooktap/events.jsonl", "linked.ts"]) {
    const r = await runCli(["init", "--yes", "--force", "--config", target], {
      cwd: tmp.path,
      permissions: ["--allow-read", "--allow-write", "--allow-env"],
    });
    assert.equal(r.code, 2, r.stderr);
    assert.match(
      r.stderr,
      /--config \S+ (is inside|is another name \(a hard link\) of a file in) hooktap's data/,
    );
    assert.equal(await log(tmp.path), before, `the event log changed (--config ${target})`);
  }
});
