/**
 * The warning readers print about lines they skip is true: a last line the
 * running `hooktap dev` is still writing is no damage (no warning), a torn
 * one with no dev running is, and a line of a newer format says to upgrade
 * rather than call it damaged.
 * @module
 */
import assert from "node:assert/strict";
import { LOAD_CONFIG } from "./_load.ts";
import { runCli, startDev, withTmpDir, writeFile } from "../_helpers.ts";
import { logText, makeEvents } from "../_store_fixture.ts";

const EVENTS = makeEvents(4);

Deno.test("a last line still being written by the running dev is not called damaged; once dev is gone it is", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", LOAD_CONFIG);
  await writeFile(tmp.path, ".hooktap/events.jsonl", logText(EVENTS));
  await using dev = await startDev(tmp.path, ["--quiet"]);
  // What a reader sees in the middle of dev's write of a large batch: the start of a line, no newline yet.
  await Deno.writeTextFile(`${tmp.path}/.hooktap/events.jsonl`, '{"v":1,"id":"evt_2024', { append: true });
  for (const args of [["logs"], ["inspect"], ["export"]]) {
    const res = await runCli(args, { cwd: tmp.path });
    assert.equal(res.code, 0, res.stderr);
    assert.doesNotMatch(res.stderr, /damaged|warning/, `${args[0]} while dev writes`);
  }
  const listed = await runCli(["logs", "--json"], { cwd: tmp.path });
  assert.equal(listed.stdout.trim().split("\n").length, 4);
  await dev.stop("SIGKILL"); // a crash: the line stays torn
  const after = await runCli(["logs"], { cwd: tmp.path });
  assert.match(after.stderr, /warning: skipped 1 damaged line .*torn by a crash/);
});

Deno.test("a line of a newer event format is skipped with 'upgrade hooktap', not called damaged", async () => {
  await using tmp = await withTmpDir();
  const lines = logText(EVENTS).split("\n");
  lines.splice(
    2,
    0,
    lines[1]!.replace('"v":1,', '"v":7,').replace(EVENTS[1]!.id, EVENTS[1]!.id.slice(0, -1) + "Z"),
  );
  lines.splice(3, 0, "not json at all");
  await writeFile(tmp.path, ".hooktap/events.jsonl", lines.join("\n"));
  for (const args of [["logs"], ["export"]]) {
    const res = await runCli(args, { cwd: tmp.path });
    assert.equal(res.code, 0, res.stderr);
    assert.match(
      res.stderr,
      /warning: skipped 1 line in \.hooktap\/events\.jsonl written by a newer hooktap \(event format v7; this one reads v1 and v2\): upgrade hooktap to see them/,
    );
    assert.match(res.stderr, /warning: skipped 1 damaged line in \.hooktap\/events\.jsonl/);
  }
});
