import assert from "node:assert/strict";
import { join } from "node:path";
import { readEvents, runCli, startDev, withTmpDir, writeFile } from "./_helpers.ts";

const CONFIG =
  `export default { port: 0, endpoints: [{ name: "a", path: "/a", method: "POST" }, { name: "b", path: "/b", method: "POST" }] };\n`;
const idsIn = async (dir: string) => (await readEvents(dir)).map((e) => e.id as string);

/** Sends `n` events to `url`, `lanes` at a time; resolves to the acknowledged ids in send order per lane. */
async function load(url: string, n: number, lanes = 4, stop?: AbortSignal): Promise<string[]> {
  const acked: string[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: lanes }, async () => {
    while (next < n && !stop?.aborted) {
      const i = next++;
      const r = await fetch(`${url}/${i % 2 ? "a" : "b"}`, { method: "POST", body: `{"i":${i}}` });
      const body = await r.text();
      if (r.status === 200) acked.push(JSON.parse(body).id);
    }
  }));
  return acked;
}

Deno.test("`hooktap prune` and `rm` without dev: keep the newest, remove by id, remove all; refuse without --yes", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", CONFIG);
  const dev = await startDev(tmp.path);
  const acked = await load(dev.url, 30, 2);
  assert.equal(await dev.stop(), 0);
  const all = await idsIn(tmp.path);
  assert.deepEqual([...acked].sort(), [...all].sort());
  const pruned = await runCli(["prune", "--keep", "10"], { cwd: tmp.path });
  assert.equal(pruned.code, 0, pruned.stderr);
  assert.match(pruned.stdout, /^10 events kept \(.+\), .+ freed\.\n$/);
  assert.deepEqual(await idsIn(tmp.path), all.slice(-10));
  // The index was rebuilt for the new log: inspect --endpoint finds each endpoint's newest.
  const index = JSON.parse(await Deno.readTextFile(join(tmp.path, ".hooktap/index.json")));
  assert.equal(index.size, (await Deno.stat(join(tmp.path, ".hooktap/events.jsonl"))).size);
  const noYes = await runCli(["rm", all[25]!], { cwd: tmp.path });
  assert.equal(noYes.code, 2);
  assert.match(noYes.stderr, /add --yes/);
  const rm = await runCli(["rm", all[25]!, all[27]!.slice(13), "--yes"], { cwd: tmp.path });
  assert.equal(rm.code, 0, rm.stderr);
  assert.deepEqual(await idsIn(tmp.path), all.slice(-10).filter((id) => id !== all[25] && id !== all[27]));
  const gone = await runCli(["rm", all[25]!, "--yes"], { cwd: tmp.path });
  assert.equal(gone.code, 1);
  assert.match(gone.stderr, /No event with id/);
  const older = await runCli(["prune", "--older-than", "1h"], { cwd: tmp.path });
  assert.equal(older.code, 0);
  assert.equal((await idsIn(tmp.path)).length, 8); // all are newer than an hour
  assert.equal((await runCli(["rm", "--all", "--yes"], { cwd: tmp.path })).code, 0);
  assert.deepEqual(await idsIn(tmp.path), []);
  const bad = await runCli(["prune"], { cwd: tmp.path });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--keep 100000, or --older-than 7d/);
});

Deno.test("`hooktap prune` and `rm` under a running dev with load: dev compacts, no acknowledged event to keep is lost", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", CONFIG);
  await using dev = await startDev(tmp.path);
  const first = await load(dev.url, 200);
  const before = await idsIn(tmp.path);
  assert.deepEqual([...first].sort(), [...before].sort());
  // Prune and rm while 4 senders keep sending.
  const stop = new AbortController();
  const during = load(dev.url, 400, 4, stop.signal);
  const pruned = await runCli(["prune", "--keep", "150"], { cwd: tmp.path });
  assert.equal(pruned.code, 0, pruned.stderr);
  assert.match(pruned.stdout, /done by the running hooktap dev/);
  const afterPrune = await idsIn(tmp.path);
  assert.ok(afterPrune.length >= 150);
  const victims = [afterPrune[10]!, afterPrune[20]!];
  const rm = await runCli(["rm", ...victims, "--yes"], { cwd: tmp.path });
  assert.equal(rm.code, 0, rm.stderr);
  const acked = await during;
  stop.abort();
  const after = await idsIn(tmp.path);
  const kept = new Set(after);
  // No hole: every acknowledged event from the oldest one kept on is there, but the two removed.
  const boundary = after[0]!;
  for (const id of [...first, ...acked]) {
    if (id >= boundary) assert.equal(kept.has(id), !victims.includes(id), `acknowledged ${id}`);
  }
  // Those pruned were the oldest: at least the first 50 of before.
  for (const id of before.slice(0, 50)) assert.ok(!kept.has(id), `${id} should have been pruned`);
  assert.ok(after.length >= 148);
  assert.deepEqual(after, [...after].sort()); // still in arrival order
  assert.equal(kept.size, after.length); // no line twice
  const last = await load(dev.url, 10, 1); // dev still writes, to the new file
  assert.deepEqual((await idsIn(tmp.path)).slice(-10), last);
  assert.equal(await dev.stop(), 0);
});

Deno.test("`retention: { keep }` in the config: dev prunes the log when it starts", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", CONFIG);
  const first = await startDev(tmp.path);
  const acked = await load(first.url, 20, 2);
  assert.equal(await first.stop(), 0);
  const all = await idsIn(tmp.path);
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    CONFIG.replace("endpoints:", "retention: { keep: 5 }, endpoints:"),
  );
  await using dev = await startDev(tmp.path);
  const deadline = Date.now() + 10_000;
  while (!/retention: pruned the log to 5 events/.test(dev.stderr()) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.match(dev.stderr(), /retention: pruned the log to 5 events/);
  assert.deepEqual(await idsIn(tmp.path), all.slice(-5));
  assert.equal(acked.length, 20);
  assert.equal(await dev.stop(), 0);
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    CONFIG.replace("endpoints:", 'retention: { olderThan: "7" }, endpoints:'),
  );
  const bad = await runCli(["dev"], { cwd: tmp.path });
  assert.equal(bad.code, 78);
  assert.match(bad.stderr, /retention\.olderThan must be an age like "7d"/);
});
