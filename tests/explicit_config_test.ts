/**
 * An explicit `--config` that is missing, a directory, or does not load is refused at start, with the config
 * loader's message and exit 78, by every command that reads the config (as `dev` and `trigger` refuse it).
 * Found by a re-audit: `mcp --config ../` and `mcp --config bad.ts` started and every tool then failed,
 * `logs` and `inspect --config nosuch.ts` exited 0 without a word, `ui --config nosuch.ts` warned and ran on.
 * Without `--config`, a default `hooktap.config.ts` that does not load keeps today's behaviour (`logs` lists).
 * The real CLI as subprocesses in a temp project.
 */
import assert from "node:assert/strict";
import { runCli, withTmpDir, writeFile } from "./_helpers.ts";
import { logText, makeEvents } from "./_store_fixture.ts";

const PERMISSIONS = ["--allow-net", "--allow-read=.", "--allow-write=.hooktap", "--allow-env"];

/** Each bad `--config`, and what the loader says of it. */
const BAD: readonly [string, RegExp][] = [
  ["nosuch.ts", /Config file .*nosuch\.ts does not exist\.\n {2}- check the --config path/],
  ["sub", /Config path .*sub is a directory, not a file\.\n {2}- point --config at the file itself/],
  ["five.ts", /five\.ts must default-export an object \{ port, endpoints \}, got 5/],
  ["broken.ts", /Config file .*broken\.ts failed to load: /],
];

/** The commands that read the config, each as it would run for a user (ui on a free port). */
const COMMANDS: readonly string[][] = [["mcp"], ["logs"], ["inspect"], ["ui", "--port", "0"]];

Deno.test("an explicit --config that is missing, a directory, or does not load stops mcp, logs, inspect and ui at start (exit 78)", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "five.ts", "export default 5;\n");
  await writeFile(tmp.path, "broken.ts", "export default { port: 8787,, };\n");
  await Deno.mkdir(`${tmp.path}/sub`);
  await writeFile(tmp.path, ".hooktap/events.jsonl", logText(makeEvents(2)));
  for (const [config, said] of BAD) {
    // trigger refused it before this fix: the others now say the same, with the same code.
    const trigger = await runCli(["trigger", "github", "push", "--config", config], {
      cwd: tmp.path,
      permissions: PERMISSIONS,
    });
    assert.equal(trigger.code, 78, trigger.stderr);
    assert.match(trigger.stderr, said);
    for (const command of COMMANDS) {
      const r = await runCli([...command, "--config", config], {
        cwd: tmp.path,
        permissions: PERMISSIONS,
        stdin: "",
        timeoutMs: 30_000,
      });
      const what = `hooktap ${command[0]} --config ${config}`;
      assert.equal(r.timedOut, undefined, `${what} kept running:\n${r.stderr}`);
      assert.equal(r.code, 78, `${what}: ${r.stderr}`);
      assert.match(r.stderr, said, what);
      assert.equal(r.stdout, "", `${what} printed nothing on stdout (mcp's is the protocol's)`);
    }
  }
});

Deno.test("without --config, a default hooktap.config.ts that does not load keeps today's behaviour", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", "export default 5;\n");
  const events = makeEvents(2);
  await writeFile(tmp.path, ".hooktap/events.jsonl", logText(events));
  // The read commands never load it to list: the events are there.
  const logs = await runCli(["logs", "--json"], { cwd: tmp.path, permissions: PERMISSIONS });
  assert.equal(logs.code, 0, logs.stderr);
  assert.equal(logs.stdout.trim().split("\n").length, 2);
  const inspect = await runCli(["inspect", events[0]!.id], { cwd: tmp.path, permissions: PERMISSIONS });
  assert.equal(inspect.code, 0, inspect.stderr);
  // And a good explicit --config is read as before.
  await writeFile(
    tmp.path,
    "good.ts",
    `export default { port: 0, endpoints: [{ name: "default", path: "/webhook", method: "POST" }] };\n`,
  );
  const good = await runCli(["logs", "--json", "--config", "good.ts"], {
    cwd: tmp.path,
    permissions: PERMISSIONS,
  });
  assert.equal(good.code, 0, good.stderr);
  assert.equal(good.stdout, logs.stdout);
});
