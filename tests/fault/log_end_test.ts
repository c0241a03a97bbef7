/**
 * The event log's last line as a user's machine leaves it: whole but
 * without its newline (an editor that saves without one), or torn and
 * NUL-filled as after a power cut. `hooktap dev` and `prune` without dev
 * keep a whole record, cut only a torn one, and say exactly what they cut.
 * @module
 */
import assert from "node:assert/strict";
import { HttpConn } from "./_http.ts";
import { LOAD_CONFIG } from "./_load.ts";
import { runCli, startDev, withTmpDir, writeFile } from "../_helpers.ts";
import { logText, makeEvents } from "../_store_fixture.ts";

const EVENTS = makeEvents(5);
const WHOLE = logText(EVENTS);
const ids = (text: string) => text.split("\n").filter(Boolean).map((l) => JSON.parse(l).id as string);

Deno.test("dev keeps a last record that only lacks its newline (no 'torn' warning) and appends after it", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", LOAD_CONFIG);
  await writeFile(tmp.path, ".hooktap/events.jsonl", WHOLE.slice(0, -1));
  await using dev = await startDev(tmp.path, ["--quiet"]);
  const conn = await HttpConn.open(dev.port);
  const res = await conn.request({ body: '{"after":"edit"}' });
  conn.close();
  assert.equal(res.status, 200, res.text());
  assert.equal(await dev.stop(), 0);
  assert.doesNotMatch(dev.stderr(), /torn/);
  const text = await Deno.readTextFile(`${tmp.path}/.hooktap/events.jsonl`);
  assert.ok(text.startsWith(WHOLE), "the five records kept byte for byte, the last given its newline");
  assert.deepEqual(ids(text), [...EVENTS.map((e) => e.id), res.headers.get("x-hooktap-event-id")]);
});

Deno.test("prune without dev keeps a newest record that only lacks its newline", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, ".hooktap/events.jsonl", WHOLE.slice(0, -1));
  const pruned = await runCli(["prune", "--keep", "2"], { cwd: tmp.path });
  assert.equal(pruned.code, 0, pruned.stderr);
  assert.match(pruned.stdout, /2 events kept/);
  const text = await Deno.readTextFile(`${tmp.path}/.hooktap/events.jsonl`);
  assert.deepEqual(ids(text), EVENTS.slice(3).map((e) => e.id));
  assert.ok(text.endsWith("\n"));
});

Deno.test("a torn, NUL-filled tail (a power cut): dev cuts exactly those bytes, says how many, keeps every record", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", LOAD_CONFIG);
  const tail = new Uint8Array([
    ...new TextEncoder().encode('{"v":1,"id":"evt_2024'),
    ...new Uint8Array(4096),
  ]);
  const good = new TextEncoder().encode(WHOLE);
  await Deno.mkdir(`${tmp.path}/.hooktap`);
  await Deno.writeFile(`${tmp.path}/.hooktap/events.jsonl`, new Uint8Array([...good, ...tail]));
  await using dev = await startDev(tmp.path, ["--quiet"]);
  assert.match(dev.stderr(), new RegExp(`removed a torn last line \\(${tail.length} bytes\\)`));
  assert.equal(await dev.stop(), 0);
  assert.deepEqual(await Deno.readFile(`${tmp.path}/.hooktap/events.jsonl`), good);
});
