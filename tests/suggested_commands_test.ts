/**
 * Every command hooktap prints starts the way the user runs it, through the
 * real CLI: under npx (a local `npm install hooktap` has no `hooktap` on
 * PATH) the npm launcher sets `HOOKTAP_INVOKED_AS=npx hooktap`, and the help's
 * quick start and examples, the usage errors, `inspect`'s hints and `dev`'s
 * start report say `npx hooktap …`; the hints `dev --config FILE` prints name
 * FILE, or say which config they assume for an endpoint FILE does not have.
 */
import assert from "node:assert/strict";
import { captureEvents } from "./_capture.ts";
import { LEAST_PRIVILEGE, runCli, startDev, withTmpDir, writeFile } from "./_helpers.ts";
import { startApp, until } from "./_app.ts";

const NPX = { HOOKTAP_INVOKED_AS: "npx hooktap" };
/** What the npm launcher gives the help (npm/hooktap.cjs OTHER): read, and that one variable. */
const HELP_PERMS = ["--allow-read=.", "--allow-env=HOOKTAP_INVOKED_AS"];
const WITH_ENV = [...LEAST_PRIVILEGE, "--allow-env"];

/** The lines of `text` that start with a hooktap command (after an indent, or `Usage: `) not run via npx. */
function plainCommands(text: string): string[] {
  return text.split("\n").filter((l) => /^\s*(Usage: )?hooktap [a-z-]/.test(l));
}

Deno.test("under npx, the help's quick start, usage lines and examples, and the usage errors say `npx hooktap`", async () => {
  await using tmp = await withTmpDir();
  const help = await runCli(["--help"], { cwd: tmp.path, env: NPX, permissions: HELP_PERMS });
  assert.equal(help.code, 0, help.stderr);
  assert.match(help.stdout, /^Usage: npx hooktap \[options\] \[command\]/);
  assert.match(
    help.stdout,
    /Quick start:\n {2}npx hooktap init --yes .*\n {2}npx hooktap dev .*\n {2}npx hooktap logs /,
  );
  assert.deepEqual(plainCommands(help.stdout), []);
  const replay = await runCli(["replay", "--help"], { cwd: tmp.path, env: NPX, permissions: HELP_PERMS });
  assert.match(replay.stdout, /^Usage: npx hooktap replay /);
  assert.match(replay.stdout, /\n {2}npx hooktap replay --undelivered --endpoint stripe --resign\n/);
  assert.deepEqual(plainCommands(replay.stdout), []);
  const bad = await runCli(["logs", "--bogus"], { cwd: tmp.path, env: NPX, permissions: WITH_ENV });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /Run `npx hooktap logs --help` for its options\./);
  const unknown = await runCli(["lgos"], { cwd: tmp.path, env: NPX, permissions: HELP_PERMS });
  assert.match(unknown.stderr, /Run `npx hooktap --help` for the commands\./);
  const rm = await runCli(["rm"], { cwd: tmp.path, env: NPX, permissions: WITH_ENV });
  assert.match(rm.stderr, /Say which events to remove: npx hooktap rm ID\.\.\., or npx hooktap rm --all\./);
  const prune = await runCli(["prune"], { cwd: tmp.path, env: NPX, permissions: WITH_ENV });
  assert.match(prune.stderr, /Say what to keep: npx hooktap prune --keep 100000/);
  const hub = await runCli(["hub", "channel", "create"], { cwd: tmp.path, env: NPX, permissions: WITH_ENV });
  assert.match(hub.stderr, /Give the hub's URL: npx hooktap hub channel create --hub URL\./);
  // Run as `hooktap` (a global install), the help stays as it was.
  const plain = await runCli(["--help"], { cwd: tmp.path, permissions: HELP_PERMS });
  assert.match(plain.stdout, /\n {2}hooktap init --yes {6}write/);
});

Deno.test("under npx, `inspect` of a binary body and of an endpoint with no events say `npx hooktap`", async () => {
  await using tmp = await withTmpDir();
  const [id] = await captureEvents(tmp.path, [{
    path: "/webhook",
    headers: [["content-type", "application/octet-stream"]],
    body: new Uint8Array([0, 1, 2, 255, 254, 0, 7]),
  }]);
  const shown = await runCli(["inspect", id!], { cwd: tmp.path, env: NPX, permissions: WITH_ENV });
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(
    shown.stdout,
    new RegExp(`Write the exact bytes with: npx hooktap inspect ${id} --body > body.bin`),
  );
  const empty = await runCli(["inspect", "--endpoint", "github"], {
    cwd: tmp.path,
    env: NPX,
    permissions: WITH_ENV,
  });
  assert.match(empty.stderr, /while `npx hooktap dev` runs/);
  const typo = await runCli(["inspect", "github"], { cwd: tmp.path, env: NPX, permissions: WITH_ENV });
  assert.match(typo.stderr, /`npx hooktap logs` lists them/);
});

Deno.test("`dev --config FILE`: its hints for given-up events name FILE, and say which config they assume for an endpoint FILE lacks", async () => {
  await using tmp = await withTmpDir();
  await using app = startApp(0, () => ({ status: 500 }));
  const endpoint = (name: string) =>
    `{ name: "${name}", path: "/${name}", method: "POST", ` +
    `forward: { to: "http://127.0.0.1:${app.port}/${name}", retry: false } }`;
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, ui: false, endpoints: [${endpoint("a")}] };\n`,
  );
  await writeFile(
    tmp.path,
    "other.config.ts",
    `export default { port: 0, ui: false, endpoints: [${endpoint("b")}] };\n`,
  );
  for (const [config, name] of [[undefined, "a"], ["other.config.ts", "b"]] as const) {
    await using dev = await startDev(tmp.path, config ? ["--config", config] : [], {
      env: NPX,
      permissions: WITH_ENV,
    });
    const r = await fetch(`${dev.url}/${name}`, { method: "POST", body: "{}" });
    await r.arrayBuffer();
    await until(() => /gave up/.test(dev.stdout()), "the gave-up line");
    if (config) {
      assert.match(
        dev.stdout(),
        new RegExp(
          `gave up: npx hooktap replay --undelivered --endpoint b --target \\S+ --config other.config.ts sends`,
        ),
      );
    }
    assert.equal(await dev.stop(), 0);
  }
  await using dev = await startDev(tmp.path, ["--config", "other.config.ts"], {
    env: NPX,
    permissions: WITH_ENV,
  });
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(await dev.stop(), 0);
  const report = dev.stderr();
  const target = (name: string) => `127\\.0\\.0\\.1:${app.port}/${name}`;
  assert.match(
    report,
    new RegExp(
      `1 event of endpoint b failed every delivery attempt to ${target("b")} earlier: ` +
        `npx hooktap replay --undelivered --endpoint b --target ${
          target("b")
        } --config other.config.ts sends`,
    ),
  );
  assert.match(
    report,
    new RegExp(
      `1 event of endpoint a failed every delivery attempt to ${target("a")} earlier: ` +
        `npx hooktap replay --undelivered --endpoint a --target ${target("a")} sends it again\\.\\n` +
        ` {2}\\(endpoint a forwards nowhere in other\\.config\\.ts: these commands assume hooktap\\.config\\.ts`,
    ),
  );
});
