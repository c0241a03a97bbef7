/**
 * `hooktap replay --undelivered` while `dev` runs: dev's lock names the targets it sends to now, so the
 * events kept for a target a reload removed are not left to a dev that never sends them.
 * @module
 */
import assert from "node:assert/strict";
import { startApp, until, unusedPort } from "./_app.ts";
import { runCli, startDev, withTmpDir, writeFile } from "./_helpers.ts";

Deno.test("replay --undelivered while dev runs sends the events kept for a target a reload removed", async () => {
  await using tmp = await withTmpDir();
  const gone = unusedPort(); // the app stopped here
  await using moved = startApp(0, () => ({ status: 200 }));
  const config = (port: number) =>
    `export default { port: 0, ui: false, endpoints: [{ name: "hook", path: "/hook", method: "POST", ` +
    `forward: "http://localhost:${port}/in" }] };\n`;
  const file = await writeFile(tmp.path, "hooktap.config.ts", config(gone));
  await using dev = await startDev(tmp.path);
  const r = await fetch(`${dev.url}/hook`, { method: "POST", body: "{}" });
  await r.body?.cancel();
  await until(() => /nothing listens/.test(dev.stdout()), `the wait\n${dev.stdout()}`);
  await Deno.writeTextFile(file, config(moved.port));
  await until(() => /kept undelivered/.test(dev.stderr()), `the reload\n${dev.stderr()}`);
  // The lock is rewritten once the new targets run: the reload's line comes first.
  const lock = `${tmp.path}/.hooktap/dev.lock`;
  await until(
    async () => (await Deno.readTextFile(lock)).includes(`:${moved.port}/in`),
    "the lock's targets",
  );

  const replay = await runCli(["replay", "--undelivered"], { cwd: tmp.path });
  // Before: "1 undelivered event is still pending while a hooktap dev runs here … delivers waiting events".
  assert.doesNotMatch(replay.stderr, /still pending while a hooktap dev runs/, replay.stderr);
  assert.match(
    replay.stderr,
    new RegExp(
      `1 undelivered event was kept for target localhost:${gone}/in of endpoint hook, which the hooktap dev ` +
        `running here \\(pid \\d+\\) no longer forwards to: that dev never sends it, so this replay sends it ` +
        `to the URL it was kept for \\(hooktap replay --undelivered --endpoint hook --target ` +
        `localhost:${gone}/in --to URL sends it elsewhere\\)`,
    ),
    replay.stderr,
  );
  // It went to the URL it was kept for, where nothing listens: said so, and still undelivered.
  assert.match(
    replay.stderr,
    new RegExp(`Not sent: nothing listens on http://localhost:${gone}`),
    replay.stderr,
  );
  // The command as printed delivers it, dev running.
  const elsewhere = await runCli(
    [
      "replay",
      "--undelivered",
      "--endpoint",
      "hook",
      "--target",
      `localhost:${gone}/in`,
      "--to",
      `http://localhost:${moved.port}/in`,
    ],
    { cwd: tmp.path },
  );
  assert.equal(elsewhere.code, 0, elsewhere.stderr);
  assert.equal(moved.requests.length, 1);
});
