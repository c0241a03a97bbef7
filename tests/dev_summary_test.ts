/**
 * The summary `hooktap dev` prints at the stop says where the session's
 * events are: in the log, or, once a prune, rm or retention removed some
 * while dev ran, how many the log still holds.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli, startDev, withTmpDir, writeFile } from "./_helpers.ts";

const CONFIG =
  `export default { port: 0, endpoints: [{ name: "default", path: "/webhook", method: "POST" }] };\n`;

async function post(url: string, body: string): Promise<number> {
  const res = await fetch(`${url}/webhook`, { method: "POST", body });
  await res.body?.cancel();
  return res.status;
}

Deno.test("dev's summary after a prune while it ran: the log's count, not 'N events captured, in the log'", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", CONFIG);
  await using dev = await startDev(tmp.path, ["--quiet"]);
  for (let i = 0; i < 5; i++) assert.equal(await post(dev.url, `before ${i}`), 200);
  const pruned = await runCli(["prune", "--keep", "2"], { cwd: tmp.path });
  assert.equal(pruned.code, 0, pruned.stderr);
  assert.equal(await post(dev.url, "after"), 200);
  assert.equal(await dev.stop(), 0);
  const lines = (await Deno.readTextFile(join(tmp.path, ".hooktap", "events.jsonl"))).split("\n").filter(
    Boolean,
  );
  assert.equal(lines.length, 3);
  assert.match(
    dev.stderr(),
    /Stopped\. 6 events captured this session; \.hooktap\/events\.jsonl holds 3 events now, as events were removed while dev ran \(prune, rm or retention\)\./,
  );
  assert.doesNotMatch(dev.stderr(), /captured this session, in /);
});

Deno.test("dev's summary with nothing removed: every event of the session, in the log", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", CONFIG);
  await using dev = await startDev(tmp.path, ["--quiet"]);
  for (let i = 0; i < 2; i++) assert.equal(await post(dev.url, `event ${i}`), 200);
  const nothing = await runCli(["prune", "--keep", "10"], { cwd: tmp.path }); // removes none
  assert.equal(nothing.code, 0, nothing.stderr);
  assert.equal(await dev.stop(), 0);
  assert.match(dev.stderr(), /Stopped\. 2 events captured this session, in \.hooktap\/events\.jsonl\./);
});
