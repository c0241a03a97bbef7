/**
 * A store holding one multi-MiB event, through the real CLI: every lookup
 * (the big event, its neighbours, an early one, an unknown id, the newest of
 * an endpoint) finds the right event, and the big one comes back byte-exact.
 * The store is generated in a temp dir, never committed.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { buildEvent, eventLine } from "../src/event/record.ts";
import { createIdFactory } from "../src/event/id.ts";
import { LEAST_PRIVILEGE, runCli, sha256, withTmpDir } from "./_helpers.ts";

const enc = new TextEncoder();

/** 300 small events, the 150th a `big` one of ~`mib` MiB (JSON with escapes); `rare`'s only event is the 6th. */
async function writeStore(dir: string, mib: number) {
  await Deno.mkdir(join(dir, ".hooktap"));
  const newId = createIdFactory();
  const start = Date.parse("2024-05-01T10:00:00Z");
  const lines: string[] = [];
  const ids: string[] = [];
  let bigBody = new Uint8Array();
  for (let i = 0; i < 300; i++) {
    const at = new Date(start + i * 1000);
    const big = i === 150;
    const body = enc.encode(
      big
        ? JSON.stringify({ blob: 'q"\\\n'.repeat(Math.floor(mib * 1048576 / 4)) })
        : JSON.stringify({ n: i }),
    );
    if (big) bigBody = body;
    const event = buildEvent({
      id: newId(at),
      endpoint: i === 5 ? "rare" : big ? "big" : "github",
      receivedAt: at,
      method: "POST",
      path: "/webhook",
      query: "",
      headers: [["content-type", "application/json"]],
      body,
      remoteAddr: "127.0.0.1",
    });
    ids.push(event.id);
    lines.push(eventLine(event));
  }
  await Deno.writeTextFile(join(dir, ".hooktap/events.jsonl"), lines.join(""));
  return { ids, bigBody };
}

Deno.test("a store with a 4 MiB event: lookups by id around it, before it and unknown ones answer right", async () => {
  await using tmp = await withTmpDir();
  const { ids, bigBody } = await writeStore(tmp.path, 4);
  const body = await runCli(["inspect", ids[150]!, "--body"], { cwd: tmp.path });
  assert.equal(body.code, 0, body.stderr);
  assert.equal(await sha256(body.stdoutBytes), await sha256(bigBody));
  for (const i of [0, 10, 149, 151, 299]) {
    const r = await runCli(["inspect", ids[i]!, "--json"], { cwd: tmp.path });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).id, ids[i]);
  }
  const unknown = ids[151]!.slice(0, -1) + (ids[151]!.endsWith("0") ? "1" : "0");
  const miss = await runCli(["inspect", unknown], { cwd: tmp.path });
  assert.equal(miss.code, 1);
  assert.match(miss.stderr, /No event with id/);
  const logs = await runCli(["logs", "-n", "300"], { cwd: tmp.path });
  assert.equal(logs.code, 0, logs.stderr);
  for (const id of [ids[0]!, ids[150]!, ids[299]!]) assert.ok(logs.stdout.includes(id), id);
});

Deno.test("inspect --endpoint on a store dev never indexed: finds the early event and keeps the index when it may", async () => {
  await using tmp = await withTmpDir();
  const { ids } = await writeStore(tmp.path, 2);
  const index = join(tmp.path, ".hooktap/index.json");
  // Read-only: found by the scan, nothing written.
  const ro = await runCli(["inspect", "--endpoint", "rare", "--json"], {
    cwd: tmp.path,
    permissions: ["--allow-read=."],
  });
  assert.equal(ro.code, 0, ro.stderr);
  assert.equal(JSON.parse(ro.stdout).id, ids[5]);
  await assert.rejects(Deno.stat(index));
  // May write: the scan goes on to the start of the log and the index is kept for every endpoint.
  const rw = await runCli(["inspect", "--endpoint", "rare", "--json"], {
    cwd: tmp.path,
    permissions: LEAST_PRIVILEGE,
  });
  assert.equal(rw.code, 0, rw.stderr);
  assert.equal(JSON.parse(rw.stdout).id, ids[5]);
  const kept = JSON.parse(await Deno.readTextFile(index));
  assert.deepEqual(kept.latest, { rare: ids[5], big: ids[150], github: ids[299] });
  assert.equal(kept.size, (await Deno.stat(join(tmp.path, ".hooktap/events.jsonl"))).size);
  // The next lookup goes through it, and finds the big one too.
  const big = await runCli(["inspect", "--endpoint", "big", "--json"], { cwd: tmp.path });
  assert.equal(big.code, 0, big.stderr);
  assert.equal(JSON.parse(big.stdout).id, ids[150]);
});
