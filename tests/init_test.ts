import assert from "node:assert/strict";
import { join } from "node:path";
import { configSource } from "../src/config/starter.ts";
import { runCli, withTmpDir } from "./_helpers.ts";

const INIT_PERMS = ["--allow-read=.", "--allow-write=hooktap.config.ts"];

Deno.test("`hooktap init --yes` writes exactly the starter config, which then loads", async () => {
  await using tmp = await withTmpDir();
  const result = await runCli(["init", "--yes"], { cwd: tmp.path, permissions: INIT_PERMS });
  assert.equal(result.code, 0, result.stderr);
  const text = await Deno.readTextFile(join(tmp.path, "hooktap.config.ts"));
  assert.equal(text, configSource());
  const mod = await import(`file://${join(tmp.path, "hooktap.config.ts")}`);
  assert.deepEqual(mod.default, {
    port: 8787,
    endpoints: [{ name: "default", path: "/webhook", method: "POST" }],
  });
  assert.match(result.stderr, /Wrote hooktap\.config\.ts: POST \/webhook \(default\) on port 8787/);
  assert.equal(result.stdout, "");
});

Deno.test("`hooktap init` in a project with the npm package hooktap installed types the config from it", async () => {
  await using tmp = await withTmpDir();
  await Deno.mkdir(join(tmp.path, "node_modules", "hooktap"), { recursive: true });
  await Deno.writeTextFile(join(tmp.path, "node_modules", "hooktap", "package.json"), '{"name":"hooktap"}');
  const result = await runCli(["init", "--yes"], { cwd: tmp.path, permissions: INIT_PERMS });
  assert.equal(result.code, 0, result.stderr);
  const text = await Deno.readTextFile(join(tmp.path, "hooktap.config.ts"));
  assert.equal(text, configSource(undefined, { typed: true }));
  assert.match(text, /^import type \{ Config \} from "hooktap";\n/);
  assert.match(text, /\} satisfies Config;\n$/);
  // The type-only import is erased when the file loads: hooktap reads it with no package resolution.
  const logs = await runCli(["logs", "--config", "hooktap.config.ts"], { cwd: tmp.path });
  assert.equal(logs.code, 0, logs.stderr);
  assert.doesNotMatch(logs.stderr, /does not load|failed to load/);
});

Deno.test("`hooktap init` without a terminal and without --yes says so and writes nothing", async () => {
  await using tmp = await withTmpDir();
  const result = await runCli(["init"], { cwd: tmp.path, permissions: INIT_PERMS });
  assert.equal(result.code, 2);
  assert.match(result.stderr, /cannot ask its questions: no terminal to ask\. Run `hooktap init --yes`/);
  await assert.rejects(Deno.stat(join(tmp.path, "hooktap.config.ts")), Deno.errors.NotFound);
});

Deno.test("`hooktap init` never overwrites an existing config unless --force", async () => {
  await using tmp = await withTmpDir();
  const file = join(tmp.path, "hooktap.config.ts");
  await Deno.writeTextFile(file, "// mine\n");
  const refused = await runCli(["init", "--yes"], { cwd: tmp.path, permissions: INIT_PERMS });
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /already exists.*`hooktap init --yes --force`/);
  assert.equal(await Deno.readTextFile(file), "// mine\n");
  const forced = await runCli(["init", "--yes", "--force"], { cwd: tmp.path, permissions: INIT_PERMS });
  assert.equal(forced.code, 0, forced.stderr);
  assert.equal(await Deno.readTextFile(file), configSource());
});

Deno.test("`hooktap init --config FILE`: every command it prints carries --config FILE", async () => {
  await using tmp = await withTmpDir();
  const perms = ["--allow-read=.", "--allow-write=alt3.config.ts"];
  const asked = await runCli(["init", "--config", "alt3.config.ts"], { cwd: tmp.path, permissions: perms });
  assert.equal(asked.code, 2);
  const run = asked.stderr.match(/Run `hooktap (init [^`]*)`/)?.[1];
  assert.equal(run, "init --yes --config alt3.config.ts", asked.stderr);
  // Pasted, it writes alt3.config.ts and names the next command for that file.
  const wrote = await runCli(run.split(" "), { cwd: tmp.path, permissions: perms });
  assert.equal(wrote.code, 0, wrote.stderr);
  assert.equal(await Deno.readTextFile(join(tmp.path, "alt3.config.ts")), configSource());
  assert.match(wrote.stderr, /\nNext: hooktap dev --config alt3\.config\.ts\n$/);
  await assert.rejects(Deno.stat(join(tmp.path, "hooktap.config.ts")), Deno.errors.NotFound);
  // Already there: the --force command replaces that file, not hooktap.config.ts.
  const again = await runCli(run.split(" "), { cwd: tmp.path, permissions: perms });
  assert.equal(again.code, 1);
  const force = again.stderr.match(/run `hooktap (init [^`]*)` to replace it/)?.[1];
  // It keeps the --yes it was given: pasted as printed, it replaces the file without asking.
  assert.equal(force, "init --yes --force --config alt3.config.ts", again.stderr);
  await Deno.writeTextFile(join(tmp.path, "alt3.config.ts"), "// mine\n");
  const forced = await runCli(force.split(" "), { cwd: tmp.path, permissions: perms });
  assert.equal(forced.code, 0, forced.stderr);
  assert.equal(await Deno.readTextFile(join(tmp.path, "alt3.config.ts")), configSource());
});

Deno.test("`hooktap init --config webhooks/hooktap.config.ts` (the help's example) says a missing folder does not exist, and how to make it", async () => {
  await using tmp = await withTmpDir();
  const args = ["init", "--config", "webhooks/hooktap.config.ts", "--force", "--yes"];
  const perms = ["--allow-read=.", "--allow-write=webhooks/hooktap.config.ts"];
  const refused = await runCli(args, { cwd: tmp.path, permissions: perms });
  assert.equal(refused.code, 1);
  assert.doesNotMatch(refused.stderr, /permissions/);
  const mkdir = refused.stderr.match(
    /The folder webhooks does not exist; .*Create it \((mkdir -p webhooks)\)/,
  )?.[1];
  assert.equal(mkdir, "mkdir -p webhooks", refused.stderr);
  // Made as it says, the same command writes the file.
  const made = await new Deno.Command("sh", { args: ["-c", mkdir], cwd: tmp.path }).output();
  assert.equal(made.code, 0);
  const wrote = await runCli(args, { cwd: tmp.path, permissions: perms });
  assert.equal(wrote.code, 0, wrote.stderr);
  assert.equal(await Deno.readTextFile(join(tmp.path, "webhooks", "hooktap.config.ts")), configSource());
});

Deno.test("`hooktap --version` prints the version from deno.json", async () => {
  await using tmp = await withTmpDir();
  const { version } = JSON.parse(await Deno.readTextFile(new URL("../deno.json", import.meta.url)));
  const result = await runCli(["--version"], { cwd: tmp.path });
  assert.equal(result.code, 0);
  assert.equal(result.stdout.trim(), version);
});

Deno.test("an unknown command or option exits 2 with a suggestion", async () => {
  await using tmp = await withTmpDir();
  const result = await runCli(["devv"], { cwd: tmp.path });
  assert.equal(result.code, 2);
  assert.match(result.stderr, /unknown command 'devv' \(did you mean dev\?\)\. Run `hooktap --help`/);
});
