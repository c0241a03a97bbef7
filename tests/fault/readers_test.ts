/**
 * The reader side under faults: `logs`, `inspect` and `replay` skip a torn
 * last line with a warning, keep working while `dev` writes under load,
 * run under the least-privilege flags, and never print payload bytes raw.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { readEvents, runCli, sha256, startDev, withTmpDir, writeFile } from "../_helpers.ts";
import { concatBytes as concat } from "../../src/bytes.ts";
import { HttpConn } from "./_http.ts";
import { LOAD_CONFIG, payload, runLoad, storedSha } from "./_load.ts";

// deno-lint-ignore no-control-regex
const RAW_CONTROL = /[\x00-\x08\x0b-\x1f\x7f\u0080-\u009f\u202a-\u202e\u2066-\u2069]/;

async function storeSome(dir: string, bodies: (string | Uint8Array)[], headers: [string, string][] = []) {
  await using dev = await startDev(dir, ["--quiet"]);
  const conn = await HttpConn.open(dev.port);
  const ids: string[] = [];
  for (const body of bodies) {
    const res = await conn.request({ body, headers, path: "/webhook?q=%1b%5b31m" });
    assert.equal(res.status, 200);
    ids.push(res.headers.get("x-hooktap-event-id")!);
  }
  conn.close();
  assert.equal(await dev.stop(), 0);
  return ids;
}

Deno.test("logs and inspect skip a torn last line with a warning and show every good record", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", LOAD_CONFIG);
  const ids = await storeSome(tmp.path, ['{"n":1}', '{"n":2}', '{"n":3}']);
  const log = join(tmp.path, ".hooktap", "events.jsonl");
  const text = await Deno.readTextFile(log);
  await Deno.writeTextFile(log, text + text.split("\n")[0]!.slice(0, 60)); // a torn tail, as after a crash

  const logs = await runCli(["logs", "--json"], { cwd: tmp.path });
  assert.equal(logs.code, 0, logs.stderr);
  assert.deepEqual(logs.stdout.trim().split("\n").map((l) => JSON.parse(l).id), ids);
  assert.match(logs.stderr, /warning: skipped 1 damaged line/);

  const human = await runCli(["logs"], { cwd: tmp.path });
  assert.equal(human.code, 0, human.stderr);
  for (const id of ids) {
    assert.ok(human.stdout.includes(id.slice(-8)) || human.stdout.includes(id), human.stdout);
  }

  const inspect = await runCli(["inspect", "--json"], { cwd: tmp.path });
  assert.equal(inspect.code, 0, inspect.stderr);
  assert.equal(JSON.parse(inspect.stdout).id, ids[2], "the newest good record, not the torn one");
  const byEndpoint = await runCli(["inspect", "--endpoint", "default", "--json"], { cwd: tmp.path });
  assert.equal(byEndpoint.code, 0, byEndpoint.stderr);
  assert.equal(JSON.parse(byEndpoint.stdout).id, ids[2]);
});

Deno.test("logs and inspect keep working, under the least-privilege flags, while dev writes under load", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", LOAD_CONFIG);
  await using dev = await startDev(tmp.path, ["--quiet"]);
  let done = false;
  const load = runLoad({ port: dev.port, connections: 50, total: 3000, body: (i) => payload(i, 21) })
    .finally(() => (done = true));
  let rounds = 0;
  const warnings: string[] = [];
  while (!done || rounds < 2) {
    rounds++;
    const [logs, inspect, byEndpoint] = await Promise.all([
      runCli(["logs", "-n", "200", "--json"], { cwd: tmp.path }),
      runCli(["inspect", "--json"], { cwd: tmp.path }),
      runCli(["inspect", "--endpoint", "default", "--json"], { cwd: tmp.path }),
    ]);
    for (const r of [logs, inspect, byEndpoint]) {
      if (r.code !== 0 && /no events|No events/i.test(r.stderr)) continue; // before the first write
      assert.equal(r.code, 0, r.stderr);
      for (const line of r.stdout.trim().split("\n").filter(Boolean)) {
        assert.equal(JSON.parse(line).v, 1, "a reader never prints a half-written record");
      }
      if (/warning/.test(r.stderr)) warnings.push(r.stderr.trim());
    }
  }
  const result = await load;
  assert.deepEqual([...result.statuses], [[200, 3000]]);
  assert.equal(await dev.stop(), 0);
  // deno-lint-ignore no-console
  console.log(
    `readers: ${rounds} rounds of logs + inspect while dev wrote 3000 events; warnings: ${warnings.length}`,
  );
});

Deno.test("replay under the least-privilege flags sends the exact stored bytes to another hooktap", async () => {
  await using source = await withTmpDir();
  await using target = await withTmpDir();
  await writeFile(source.path, "hooktap.config.ts", LOAD_CONFIG);
  await writeFile(target.path, "hooktap.config.ts", LOAD_CONFIG);
  const body = concat([new Uint8Array([0xff, 0x00, 0x1b]), payload(5, 9).bytes]);
  const [id] = await storeSome(source.path, [body], [["content-type", "application/octet-stream"]]);
  await using receiver = await startDev(target.path, ["--quiet"]);
  const replay = await runCli(["replay", id!, "--to", `${receiver.url}/webhook`], { cwd: source.path });
  assert.equal(replay.code, 0, replay.stderr);
  assert.equal(await receiver.stop(), 0);
  const [got] = await readEvents(target.path);
  assert.equal(await storedSha(got!), await sha256(body));
  assert.equal(got!.bodyEncoding, "base64");
});

Deno.test("hostile payload text never reaches the terminal raw from logs or inspect", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", LOAD_CONFIG);
  const nasty =
    "title\x1b]0;pwned\x07 \x1b[2J\x1b[H wipe\r\bover \u009b31m c1 \u202egnp.exe \u2066iso\u2069 \x00nul";
  const long = "L".repeat(200_000) + "\x1b[31m";
  // Header values may carry obs-text bytes; c2 9b decodes to U+00C2 U+009B (a C1 CSI) in Deno's Latin-1 view.
  const ids = await storeSome(tmp.path, [nasty, long, new Uint8Array([0x1b, 0x5b, 0x32, 0x4a, 0xff])], [
    ["x-evil", "a\u00c2\u009b31mred"],
  ]);
  // And a record written by something else, with control characters in every string field.
  const log = join(tmp.path, ".hooktap", "events.jsonl");
  const forged = {
    v: 1,
    id: "evt_20240101_01HXAAAAAAAAAAAAAAAAAAAAAA",
    endpoint: "default\x1b[31m",
    receivedAt: "2024-01-01T00:00:00.000Z\x07",
    method: "PO\x1bST",
    path: "/\x1b[2J",
    query: "\x1b]0;t\x07",
    headers: [["x-\x1b[1m", "\x1b[5m"]],
    body: nasty,
    bodyEncoding: "utf8",
    bodySize: nasty.length,
    remoteAddr: "\x1b[8m",
  };
  await Deno.writeTextFile(log, JSON.stringify(forged) + "\n", { append: true });

  const runs = await Promise.all([
    runCli(["logs"], { cwd: tmp.path }),
    runCli(["logs", "--endpoint", "default"], { cwd: tmp.path }),
    ...ids.map((id) => runCli(["inspect", id], { cwd: tmp.path })),
    runCli(["inspect", forged.id], { cwd: tmp.path }),
    runCli(["inspect", "--endpoint", "default"], { cwd: tmp.path }),
  ]);
  for (const [i, r] of runs.entries()) {
    assert.equal(r.code, 0, `run ${i}: ${r.stderr}`);
    assert.doesNotMatch(r.stdout, RAW_CONTROL, `run ${i} stdout carries a raw control character`);
    assert.doesNotMatch(r.stderr, RAW_CONTROL, `run ${i} stderr carries a raw control character`);
  }
  // The machine formats stay exact: JSON escapes the bytes, --body gives them back as sent.
  const body = await runCli(["inspect", ids[0]!, "--body"], { cwd: tmp.path });
  assert.equal(body.stdout, nasty);
});
