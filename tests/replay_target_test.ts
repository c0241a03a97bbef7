/**
 * Where `hooktap replay ID` sends an event by default, through the real CLI:
 * where `dev` forwarded it (its forward mark), so the replay counts for that
 * target in `logs` and `inspect`, and the hint `dev` prints says so.
 */
import assert from "node:assert/strict";
import { runCli, startDev, withTmpDir, writeFile } from "./_helpers.ts";
import { startApp, unusedPort } from "./_app.ts";

Deno.test("`replay ID` of an event relayed by `dev --forward-to` goes where dev relayed it, not to the config's target, and counts for it", async () => {
  await using tmp = await withTmpDir();
  await using configured = startApp(0, () => ({ status: 200, body: "configured" }));
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, ui: false, endpoints: [{ name: "gh", path: "/gh", method: "POST", ` +
      `forward: "http://127.0.0.1:${configured.port}/app" }] };\n`,
  );
  const port = unusedPort();
  const relayTo = `http://127.0.0.1:${port}/x`;
  await using dev = await startDev(tmp.path, ["--forward-to", relayTo, "--forward-mode", "relay"]);
  {
    const r = await fetch(`${dev.url}/gh`, { method: "POST", body: '{"n":1}' });
    assert.equal(r.status, 502);
    await r.arrayBuffer();
    assert.equal(await dev.stop(), 0);
  }
  const id = JSON.parse((await runCli(["logs", "--json"], { cwd: tmp.path })).stdout.trim()).id;
  // The hint names the event (it said `replay ID`, which failed when pasted), and works as printed.
  const hint = dev.stderr().match(
    /\((hooktap replay \S+) sends it again to 127\.0\.0\.1:(\d+), where it was relayed/,
  );
  assert.deepEqual([hint?.[1], Number(hint?.[2])], [`hooktap replay ${id}`, port], dev.stderr());
  await using relayed = startApp(port, () => ({ status: 200, body: "relayed" }));
  const replayed = await runCli(hint![1]!.split(" ").slice(1), { cwd: tmp.path });
  assert.equal(replayed.code, 0, replayed.stderr);
  assert.match(replayed.stderr, new RegExp(`as POST ${relayTo} \\(target 127\\.0\\.0\\.1:${port}/x\\)`));
  assert.equal(relayed.requests.length, 1, "sent where dev relayed it");
  assert.equal(configured.requests.length, 0, "not to the config's target");
  const logs = await runCli(["logs"], { cwd: tmp.path });
  assert.match(logs.stdout, /→ 200 \(1 try, 1 replay\)/);
  const shown = await runCli(["inspect", id], { cwd: tmp.path });
  assert.doesNotMatch(shown.stdout, /Sent elsewhere/);
});
