import assert from "node:assert/strict";
import { DENO_JSON, runCli, withTmpDir, writeFile } from "./_helpers.ts";
import { captureEvents, MULTI_CONFIG } from "./_capture.ts";

const READ_ONLY = ["--allow-read=."];

Deno.test("`hooktap completions bash|zsh|fish` prints a script that asks `hooktap complete` at each TAB, with read permission only", async () => {
  await using tmp = await withTmpDir();
  const markers = {
    bash: /complete -F __hooktap_complete hooktap|complete .*hooktap/,
    zsh: /^#compdef hooktap/,
    fish: /complete -c hooktap/,
  };
  for (const [shell, marker] of Object.entries(markers)) {
    const r = await runCli(["completions", shell], { cwd: tmp.path, permissions: READ_ONLY });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, "");
    assert.match(r.stdout, marker, shell);
    assert.match(r.stdout, /hooktap complete --/, shell);
  }
  const bad = await runCli(["completions", "tcsh"], { cwd: tmp.path, permissions: READ_ONLY });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /Allowed choices are bash, zsh, fish, powershell/);
});

Deno.test("`hooktap complete` offers commands, options, the config's endpoint names and recent event ids", async () => {
  await using tmp = await withTmpDir();
  const ids = await captureEvents(tmp.path, [{ path: "/webhook", body: "a" }, {
    path: "/github",
    body: "b",
  }]);
  const words = async (...args: string[]) => {
    const r = await runCli(["complete", "--", ...args], { cwd: tmp.path, permissions: READ_ONLY });
    assert.equal(r.code, 0, r.stderr);
    return r.stdout.trimEnd().split("\n").map((l) => l.split("\t")[0]);
  };
  assert.deepEqual(await words("inspect", "--endpoint", ""), ["default", "github", "ping", ":4"]);
  assert.deepEqual(await words("logs", "--endpoint", "g"), ["github", ":4"]);
  const commands = await words("");
  for (const c of ["init", "dev", "logs", "inspect", "replay", "completions"]) {
    assert.ok(commands.includes(c), c);
  }
  assert.ok(!commands.includes("complete"));
  assert.deepEqual(await words("replay", ""), [ids[1], ids[0], ":4"]);
  assert.ok((await words("logs", "--")).includes("--follow"));
});

Deno.test("every command's --help has a description and an example, and --version prints deno.json's version", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", MULTI_CONFIG);
  for (const command of ["init", "dev", "logs", "inspect", "replay", "completions"]) {
    const r = await runCli([command, "--help"], { cwd: tmp.path, permissions: READ_ONLY });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^Usage: hooktap ${command} .*\\n\\n\\S.{10,}\\n`), command);
    assert.match(r.stdout, /\nExamples?:\n {2}(hooktap|source|#)/, command);
  }
  const version = JSON.parse(await Deno.readTextFile(DENO_JSON)).version;
  const v = await runCli(["--version"], { cwd: tmp.path, permissions: READ_ONLY });
  assert.equal(v.stdout, `${version}\n`);
});
