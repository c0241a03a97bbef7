import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { CODE_READ, DENO_JSON, MAIN, runCli, withTmpDir } from "./_helpers.ts";

const MOD = fileURLToPath(new URL("../mod.ts", import.meta.url));

Deno.test("./cli (main.ts) run as the main module runs the CLI (as `deno run jsr:@hooktap/hooktap/cli` will)", async () => {
  await using tmp = await withTmpDir();
  const { code, stdout } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", `--config=${DENO_JSON}`, "--allow-read=.", CODE_READ, MAIN, "logs", "--help"],
    cwd: tmp.path,
    stdin: "null",
  }).output();
  assert.equal(code, 0);
  assert.match(new TextDecoder().decode(stdout), /^Usage: hooktap logs/);
});

Deno.test("mod.ts run as the main module is the library only: it runs no CLI and prints nothing", async () => {
  await using tmp = await withTmpDir();
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", `--config=${DENO_JSON}`, "--allow-read=.", MOD, "--help"],
    cwd: tmp.path,
    stdin: "null",
  }).output();
  assert.equal(code, 0, new TextDecoder().decode(stderr));
  assert.equal(new TextDecoder().decode(stdout), "");
});

Deno.test("importing mod.ts only exports the library: no CLI runs, nothing printed", async () => {
  await using tmp = await withTmpDir();
  const script = `const m = await import(${
    JSON.stringify(MOD)
  }); console.log(JSON.stringify(Object.keys(m).sort()));`;
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["eval", `--config=${DENO_JSON}`, script, "--help"],
    cwd: tmp.path,
    stdin: "null",
  }).output();
  assert.equal(code, 0, new TextDecoder().decode(stderr));
  const keys: string[] = JSON.parse(new TextDecoder().decode(stdout));
  for (const name of ["defineConfig", "ConfigError", "HooktapError"]) {
    assert.ok(keys.includes(name), `${name} in ${keys}`);
  }
  // The test library is "./testing", not ".".
  for (const name of ["createHandler", "startReceiver", "loadConfig"]) assert.ok(!keys.includes(name), name);
});

Deno.test("the ./testing entry exports the test library, and importing it runs nothing", async () => {
  const script = `const m = await import(${
    JSON.stringify(new URL("../src/testing/mod.ts", import.meta.url).href)
  }); console.log(JSON.stringify(Object.keys(m).sort()));`;
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["eval", `--config=${DENO_JSON}`, script],
    stdin: "null",
  }).output();
  assert.equal(code, 0, new TextDecoder().decode(stderr));
  const keys: string[] = JSON.parse(new TextDecoder().decode(stdout));
  for (
    const name of [
      "startReceiver",
      "loadEvents",
      "writeFixture",
      "replayEvent",
      "createHandler",
      "ConfigError",
    ]
  ) assert.ok(keys.includes(name), `${name} in ${keys}`);
});

Deno.test("an operation Deno's permission flags refuse is reported as such (exit 77), not as a crash to report", async () => {
  await using tmp = await withTmpDir();
  // hub serve creates its --kv directory: not allowed under write=.hooktap only.
  const r = await runCli(["hub", "serve", "--port", "0", "--kv", "data/hub.kv"], {
    cwd: tmp.path,
    permissions: ["--allow-net", "--allow-read=.", "--allow-write=.hooktap", "--unstable-kv"],
  });
  assert.equal(r.code, 77, r.stderr);
  assert.match(r.stderr, /Requires write access to ".*data".*grant this one/s);
  assert.doesNotMatch(r.stderr, /failed unexpectedly|\n\s+at /);
});
