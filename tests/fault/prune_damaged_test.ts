/**
 * `prune --keep N` on a log with hand-damaged lines: it keeps N events (a
 * line that is no record is not one of them), says how many it kept truly,
 * and removes no event it was told to keep.
 * @module
 */
import assert from "node:assert/strict";
import { runCli, withTmpDir, writeFile } from "../_helpers.ts";
import { logText, makeEvents } from "../_store_fixture.ts";

const EVENTS = makeEvents(8);

Deno.test("prune --keep N keeps N events when garbage lines sit among them, and says so truly", async () => {
  await using tmp = await withTmpDir();
  const lines = logText(EVENTS).split("\n").filter(Boolean);
  // Garbage among the newest events; a line of a newer format is an event too.
  lines.splice(7, 0, "garbage one", "\u0000\u0000\u0000");
  lines.splice(
    5,
    0,
    "garbage two",
    lines[4]!.replace('"v":1,', '"v":9,').replace(EVENTS[4]!.id, `${EVENTS[4]!.id}x`),
  );
  await writeFile(tmp.path, ".hooktap/events.jsonl", lines.join("\n") + "\n");
  const pruned = await runCli(["prune", "--keep", "4"], { cwd: tmp.path });
  assert.equal(pruned.code, 0, pruned.stderr);
  assert.match(pruned.stdout, /^4 events kept/);
  const text = await Deno.readTextFile(`${tmp.path}/.hooktap/events.jsonl`);
  const records = text.split("\n").filter((l) => l.startsWith('{"v":'));
  assert.equal(records.length, 4);
  // The newest 3 readable events and the newer-format one are all there.
  for (const e of EVENTS.slice(5)) assert.ok(text.includes(e.id), `${e.id} kept`);
  const count = await runCli(["logs", "--count"], { cwd: tmp.path });
  assert.equal(count.stdout.trim(), "3");
  // Keeping more than there are changes nothing, byte for byte.
  const again = await runCli(["prune", "--keep", "4"], { cwd: tmp.path });
  assert.equal(again.code, 0, again.stderr);
  assert.equal(await Deno.readTextFile(`${tmp.path}/.hooktap/events.jsonl`), text);
});
