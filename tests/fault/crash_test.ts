/**
 * Faults of the process: SIGKILL in the middle of a load, a torn last line,
 * a second writer, and SIGTERM / Ctrl-C (SIGINT) while requests are in flight.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { cliArgs, LEAST_PRIVILEGE, runCli, startDev, withTmpDir, writeFile } from "../_helpers.ts";
import { HttpConn } from "./_http.ts";
import { startApp, until } from "../_app.ts";
import { LOAD_CONFIG, payload, runLoad, type Sent, splitLog, storedSha } from "./_load.ts";

const KILLS = Number(Deno.env.get("HOOKTAP_KILL_ROUNDS") ?? 6);

function eventsFile(dir: string): string {
  return join(dir, ".hooktap", "events.jsonl");
}

/** Every line but the torn tail parses; returns the records and the tail. */
async function readLog(dir: string): Promise<{ events: Record<string, unknown>[]; torn: string }> {
  const { lines, torn } = splitLog(await Deno.readTextFile(eventsFile(dir)));
  const events = lines.map((line, i) => {
    try {
      return JSON.parse(line) as Record<string, unknown>;
    } catch {
      throw new Error(
        `line ${i + 1} of ${lines.length} does not parse (only the last may be torn): ${line.slice(0, 200)}`,
      );
    }
  });
  return { events, torn };
}

/**
 * `hooktap dev` with its stdout piped to the test (as `dev | jq` or `dev | head` would), its stderr read until
 * `ready` matches. `rest()` reads stderr to its end (after the process exits).
 */
async function devPiped(dir: string, args: string[], ready: RegExp) {
  const child = new Deno.Command(Deno.execPath(), {
    args: cliArgs(LEAST_PRIVILEGE, ["dev", "--port", "0", ...args]),
    cwd: dir,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  const errors = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let stderr = "";
  while (!ready.test(stderr)) {
    const { value, done } = await errors.read();
    if (done) throw new Error(`dev did not start:\n${stderr}`);
    stderr += value;
  }
  const port = Number(stderr.match(/listening on http:\/\/[^:]+:(\d+)/)![1]);
  const rest = async () => {
    for (;;) {
      const { value, done } = await errors.read();
      if (done) return stderr;
      stderr += value;
    }
  };
  return { child, port, rest };
}

Deno.test(`SIGKILL in the middle of a load, ${KILLS} times: every acknowledged event survives, the next dev repairs the tail`, async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", LOAD_CONFIG);
  const acked = new Map<string, Sent>();
  let tornSeen = 0;
  let lastTorn = "";
  for (let round = 0; round < KILLS; round++) {
    await using dev = await startDev(tmp.path, ["--quiet"]);
    if (lastTorn !== "") {
      assert.match(dev.stderr(), /removed a torn last line \(\d+ bytes\)/, "dev says it cut a torn tail");
    }
    // Even rounds: the usual mix, killed at a different point each time. Odd rounds: 1 MiB bodies
    // only, so batches are tens of MB and the kill is likely to land in the middle of a write.
    const big = round % 2 === 1;
    const killAfter = big ? 20 + round * 5 : 150 + round * 250;
    let killed = false;
    const result = await runLoad({
      port: dev.port,
      connections: big ? 32 : 64,
      body: (i) => payload(big ? i * 1000 + 999 : i, 100 + round),
      stop: () => killed,
      onAck: (n) => {
        if (n >= killAfter && !killed) {
          killed = true;
          dev.child.kill("SIGKILL");
        }
      },
    });
    assert.equal((await dev.child.status).code, 137, "dev died by SIGKILL");
    assert.ok(result.acked.size >= killAfter);
    for (const [id, sent] of result.acked) acked.set(id, sent);

    const { events, torn } = await readLog(tmp.path);
    if (torn !== "") {
      tornSeen++;
      assert.ok(torn.startsWith('{"v":1'), "a torn tail is the start of a record");
    }
    lastTorn = torn;
    const stored = new Map(events.map((e) => [e.id as string, e]));
    assert.equal(stored.size, events.length, "no id is stored twice");
    for (const [id, sent] of acked) {
      const event = stored.get(id);
      assert.ok(
        event !== undefined,
        `acknowledged ${id} (request ${sent.index}) is missing after kill ${round + 1}`,
      );
      assert.equal(await storedSha(event), sent.sha);
    }
  }

  // Simulate the worst torn tail too (a half-written record), then restart and append.
  const before = await Deno.readTextFile(eventsFile(tmp.path));
  const cleanEnd = before.lastIndexOf("\n") + 1;
  const half = before.slice(0, cleanEnd) + before.slice(0, cleanEnd).split("\n")[0]!.slice(0, 77);
  await Deno.writeTextFile(eventsFile(tmp.path), half);
  await using dev = await startDev(tmp.path, ["--quiet"]);
  assert.match(dev.stderr(), /warning: removed a torn last line \(77 bytes\)/);
  const conn = await HttpConn.open(dev.port);
  const res = await conn.request({
    body: '{"after":"repair"}',
    headers: [["content-type", "application/json"]],
  });
  conn.close();
  assert.equal(res.status, 200);
  assert.equal(await dev.stop("SIGTERM"), 0);
  const { events, torn } = await readLog(tmp.path);
  assert.equal(torn, "", "the log ends cleanly");
  assert.equal(events.at(-1)!.body, '{"after":"repair"}', "the new record stands on its own line");
  assert.equal(events.length, acked.size + 1 + (events.length - acked.size - 1)); // unacked-but-stored are allowed
  for (const id of acked.keys()) assert.ok(events.some((e) => e.id === id));
  // deno-lint-ignore no-console
  console.log(
    `kill: ${KILLS} SIGKILLs survived, ${acked.size} acknowledged events all present, ` +
      `${events.length} stored, ${tornSeen} real torn tails seen (+1 simulated)`,
  );
});

Deno.test("a log that is only a torn fragment (no newline at all) is cut to empty before appending", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", LOAD_CONFIG);
  await writeFile(tmp.path, ".hooktap/events.jsonl", '{"v":1,"id":"evt_2024');
  await using dev = await startDev(tmp.path, ["--quiet"]);
  assert.match(dev.stderr(), /removed a torn last line \(21 bytes\)/);
  const conn = await HttpConn.open(dev.port);
  assert.equal((await conn.request({ body: "x" })).status, 200);
  conn.close();
  await dev.stop();
  const { events, torn } = await readLog(tmp.path);
  assert.equal(torn, "");
  assert.equal(events.length, 1);
  assert.equal(events[0]!.body, "x");
});

Deno.test("a second `hooktap dev` on the same data directory is refused, naming the pid that holds it", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", LOAD_CONFIG);
  await using first = await startDev(tmp.path, ["--quiet"]);
  const second = await runCli(["dev", "--port", "0"], { cwd: tmp.path });
  assert.notEqual(second.code, 0);
  assert.match(second.stderr, new RegExp(`pid ${first.child.pid}\\b`));
  assert.match(second.stderr, /already writing to .*\.hooktap/);
  assert.match(second.stderr, new RegExp(`port ${first.port}`));
  // The first one is unharmed and still the only writer.
  const conn = await HttpConn.open(first.port);
  assert.equal((await conn.request({ body: "still here" })).status, 200);
  conn.close();
  // Once it dies (even by SIGKILL), the kernel drops the lock: the next one starts.
  await first.stop("SIGKILL");
  await using third = await startDev(tmp.path, ["--quiet"]);
  assert.ok(third.port > 0);
});

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  Deno.test(`${signal} during a load: dev drains and exits 0; every acknowledged event is stored, none cut off with a 4xx`, async () => {
    await using tmp = await withTmpDir();
    await writeFile(tmp.path, "hooktap.config.ts", LOAD_CONFIG);
    await using dev = await startDev(tmp.path, ["--quiet"]);
    let signalled = false;
    const result = await runLoad({
      port: dev.port,
      connections: 100,
      body: (i) => payload(i, signal === "SIGTERM" ? 3 : 4),
      stop: () => false, // run until the server goes away
      onAck: (n) => {
        if (n >= 800 && !signalled) {
          signalled = true;
          dev.child.kill(signal);
        }
      },
    });
    assert.ok(signalled);
    const { code } = await dev.child.status; // no second signal: that one would mean "stop waiting"
    await dev.stop(); // (already exited: only collects the rest of its output)
    assert.equal(code, 0, `dev exits 0 after ${signal}:\n${dev.stderr()}`);
    // Requests already in the handler finish with 200 (a body mid-upload is read to its end, not cut
    // off with a 400); requests that arrive after the signal are turned away with a retryable 503.
    const other = [...result.statuses.keys()].filter((s) => s !== 200 && s !== 503);
    assert.deepEqual(other, [], `only 200 or 503: ${result.otherBodies}`);
    for (const body of result.otherBodies) {
      assert.match(body, /^503 hooktap is shutting down; nothing was stored/);
    }
    assert.ok((result.statuses.get(200) ?? 0) >= 800);
    const { events, torn } = await readLog(tmp.path);
    assert.equal(torn, "");
    const ids = new Set(events.map((e) => e.id));
    for (const id of result.acked.keys()) assert.ok(ids.has(id), `acknowledged ${id} is missing`);
    const m = dev.stderr().match(/Stopped\. (\d+) events? captured/);
    assert.ok(m, dev.stderr());
    assert.equal(Number(m[1]), events.length, "the final count is what the file holds");
  });
}

Deno.test("SIGTERM while a body is half uploaded: the upload finishes, is stored and answered 200", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", LOAD_CONFIG);
  await using dev = await startDev(tmp.path, ["--quiet"]);
  const conn = await HttpConn.open(dev.port);
  await conn.send("POST /webhook HTTP/1.1\r\nhost: x\r\ncontent-length: 10\r\n\r\n12345");
  await new Promise((r) => setTimeout(r, 200));
  dev.child.kill("SIGTERM");
  await new Promise((r) => setTimeout(r, 300));
  // A newcomer during the drain is turned away, retryably.
  const late = await HttpConn.open(dev.port).catch(() => undefined);
  if (late !== undefined) {
    const res = await late.request({ body: "late" }).catch(() => undefined);
    if (res !== undefined) assert.equal(res.status, 503);
    late.close();
  }
  await conn.send("67890");
  const res = await conn.readResponse();
  conn.close();
  assert.equal(res.status, 200, res.text());
  assert.equal((await dev.child.status).code, 0);
  const { events, torn } = await readLog(tmp.path);
  assert.equal(torn, "");
  assert.deepEqual(events.map((e) => e.body), ["1234567890"]);
});

Deno.test("when whoever reads dev's stdout goes away (dev --json | jq, jq quits), dev keeps receiving", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", LOAD_CONFIG);
  const { child, port, rest } = await devPiped(tmp.path, ["--json"], /listening on http:\/\/[^:]+:(\d+)/);
  await child.stdout.cancel(); // the pipe's reader is gone: the next write to stdout fails with EPIPE
  const statuses: number[] = [];
  for (let i = 0; i < 5; i++) {
    const conn = await HttpConn.open(port);
    statuses.push((await conn.request({ body: `after the pipe closed #${i}` })).status);
    conn.close();
    await new Promise((r) => setTimeout(r, 20));
  }
  child.kill("SIGTERM");
  const { code } = await child.status;
  const stderr = await rest();
  assert.deepEqual(statuses, [200, 200, 200, 200, 200], stderr);
  assert.equal(code, 0, stderr);
  assert.match(stderr, /warning: cannot print request lines any more .*still receiving and storing events/);
  assert.match(stderr, /Stopped\. 5 events captured/);
  const { events } = await readLog(tmp.path);
  assert.equal(events.length, 5);
});

Deno.test("hooktap dev | head -1 while it forwards: one warning that stdout closed, deliveries go on", async () => {
  await using tmp = await withTmpDir();
  await using app = startApp(0, () => ({ status: 200 }));
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, ui: false, endpoints: [{ name: "gh", path: "/gh", method: "POST", ` +
      `forward: "http://127.0.0.1:${app.port}/hook" }] };\n`,
  );
  const { child, port, rest } = await devPiped(tmp.path, [], /Forwarding "gh"/);
  const send = async (body: string) => {
    const res = await fetch(`http://127.0.0.1:${port}/gh`, { method: "POST", body });
    await res.body?.cancel();
    return res.status;
  };
  // `head -1`: the first line read, then the reader is gone.
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  assert.equal(await send('{"n":0}'), 200);
  let stdout = "";
  while (!stdout.includes("\n")) {
    const { value, done } = await lines.read();
    if (done) break;
    stdout += value;
  }
  await lines.cancel();
  for (let i = 1; i <= 3; i++) {
    assert.equal(await send(`{"n":${i}}`), 200);
    await new Promise((r) => setTimeout(r, 50));
  }
  await until(() => app.requests.length === 4, "every delivery");
  child.kill("SIGTERM");
  const { code } = await child.status;
  const stderr = await rest();
  assert.equal(code, 0, stderr);
  assert.equal(stderr.match(/cannot print/g)?.length, 1, `one warning:\n${stderr}`);
});

Deno.test("SIGTERM with an upload that never finishes: dev waits a bounded time, then exits 0, storing nothing", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", LOAD_CONFIG);
  await using dev = await startDev(tmp.path, ["--quiet"]);
  const conn = await HttpConn.open(dev.port);
  await conn.send("POST /webhook HTTP/1.1\r\nhost: x\r\ncontent-length: 1000\r\n\r\nnever finished");
  await new Promise((r) => setTimeout(r, 200));
  const started = Date.now();
  dev.child.kill("SIGTERM");
  const { code } = await dev.child.status;
  const waited = (Date.now() - started) / 1000;
  conn.close();
  assert.equal(code, 0);
  assert.ok(waited < 30, `dev exited (after ${waited.toFixed(1)} s; the drain waits up to 5 s)`);
  const { events, torn } = await readLog(tmp.path);
  assert.deepEqual([events.length, torn], [0, ""]);
});
