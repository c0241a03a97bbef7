/**
 * `hooktap doctor` mentions the deliveries given up on: how many, and the command that sends them again.
 * @module
 */
import assert from "node:assert/strict";
import { startApp, until } from "./_app.ts";
import { runCli, startDev, withTmpDir, writeFile } from "./_helpers.ts";

Deno.test("doctor: given-up deliveries in one line, with the command that sends them again, which works", async () => {
  await using tmp = await withTmpDir();
  let status = 500;
  await using app = startApp(0, () => ({ status }));
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, ui: false, endpoints: [{ name: "hook", path: "/hook", method: "POST", ` +
      `forward: { to: "http://127.0.0.1:${app.port}/in", retry: false } }] };\n`,
  );
  {
    await using dev = await startDev(tmp.path);
    for (let i = 0; i < 2; i++) {
      const r = await fetch(`${dev.url}/hook`, { method: "POST", body: "{}" });
      await r.body?.cancel();
    }
    await until(() => (dev.stdout().match(/gave up/g) ?? []).length === 2, `the refusals\n${dev.stdout()}`);
    assert.equal(await dev.stop(), 0);
  }
  const doctor = await runCli(["doctor"], { cwd: tmp.path, timeoutMs: 30_000 });
  // Before: no word of them.
  assert.match(
    doctor.stdout,
    /warn {2}given up: 2 events were given up on earlier \(every delivery attempt to their forward target failed\)\n {6}fix: once the app is fixed, hooktap replay --undelivered --endpoint hook sends them again\n/,
    doctor.stdout,
  );
  status = 200;
  const again = await runCli(["replay", "--undelivered", "--endpoint", "hook"], { cwd: tmp.path });
  assert.equal(again.code, 0, again.stderr);
  const after = await runCli(["doctor"], { cwd: tmp.path, timeoutMs: 30_000 });
  assert.doesNotMatch(after.stdout, /given up/, after.stdout);
});
