import assert from "node:assert/strict";
import { join } from "node:path";
import { cliArgs, readEvents, startDev, withTmpDir, writeFile } from "./_helpers.ts";

const CONFIG = `export default { port: 0, endpoints: [{ name: "a", path: "/a", method: "POST" }] };\n`;

async function waitFor(path: string, child: Deno.ChildProcess): Promise<void> {
  const deadline = Date.now() + 20_000;
  let done = false;
  child.status.then(() => (done = true));
  while (!(await Deno.stat(path).then(() => true, () => false))) {
    if (done) throw new Error("the process exited before reaching the test point");
    if (Date.now() > deadline) throw new Error(`never reached ${path}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

for (const point of ["copied", "renamed"] as const) {
  Deno.test(`SIGKILL of \`hooktap prune\` when the new log is ${point} leaves the ${point === "copied" ? "old" : "new"} log whole`, async () => {
    await using tmp = await withTmpDir();
    await writeFile(tmp.path, "hooktap.config.ts", CONFIG);
    const dev = await startDev(tmp.path);
    for (let i = 0; i < 40; i++) {
      const r = await fetch(`${dev.url}/a`, { method: "POST", body: `{"i":${i}}` });
      assert.equal(r.status, 200);
      await r.body?.cancel();
    }
    assert.equal(await dev.stop(), 0);
    const log = join(tmp.path, ".hooktap/events.jsonl");
    const old = await Deno.readTextFile(log);
    const child = new Deno.Command(Deno.execPath(), {
      args: cliArgs(["-A"], ["prune", "--keep", "5"]),
      cwd: tmp.path,
      env: { HOOKTAP_TEST_COMPACT_PAUSE: point, NO_COLOR: "1" },
      stdout: "null",
      stderr: "null",
    }).spawn();
    await waitFor(join(tmp.path, ".hooktap", `compact-paused-${point}`), child);
    child.kill("SIGKILL");
    await child.status;
    const now = await Deno.readTextFile(log);
    const oldLines = old.split("\n").filter((l) => l !== "");
    if (point === "copied") assert.equal(now, old);
    else assert.equal(now, oldLines.slice(-5).map((l) => l + "\n").join(""));
    // The next dev starts cleanly on it and the next prune finishes the job.
    const again = await startDev(tmp.path);
    const r = await fetch(`${again.url}/a`, { method: "POST", body: "{}" });
    assert.equal(r.status, 200);
    await r.body?.cancel();
    const pruned = new Deno.Command(Deno.execPath(), {
      args: cliArgs(["-A"], ["prune", "--keep", "3"]),
      cwd: tmp.path,
      stdout: "piped",
      stderr: "piped",
    });
    assert.equal((await pruned.output()).code, 0);
    assert.equal(await again.stop(), 0);
    const ids = (await readEvents(tmp.path)).map((e) => e.id);
    assert.equal(ids.length, 3);
    assert.equal(
      await Deno.stat(join(tmp.path, ".hooktap/events.jsonl.compact.tmp")).then(() => 1, () => 0),
      0,
    );
  });
}

Deno.test("SIGKILL of a `hooktap dev` paused mid-compaction loses no acknowledged event", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", CONFIG);
  await using dev = await startDev(tmp.path, [], {
    permissions: ["-A"],
    env: { HOOKTAP_TEST_COMPACT_PAUSE: "copied" },
  });
  const acked: string[] = [];
  for (let i = 0; i < 30; i++) {
    const r = await fetch(`${dev.url}/a`, { method: "POST", body: `{"i":${i}}` });
    acked.push(JSON.parse(await r.text()).id);
  }
  const prune = new Deno.Command(Deno.execPath(), {
    args: cliArgs(["-A"], ["prune", "--keep", "5"]),
    cwd: tmp.path,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  await waitFor(join(tmp.path, ".hooktap/compact-paused-copied"), dev.child);
  // A request while the writer is paused waits: it must not be acknowledged.
  const waiting = fetch(`${dev.url}/a`, { method: "POST", body: "{}" }).then((r) => r.status, () => "failed");
  await new Promise((r) => setTimeout(r, 200));
  await dev.stop("SIGKILL");
  assert.equal(await waiting, "failed");
  const out = await prune.output();
  assert.notEqual(out.code, 0); // dev died before answering
  const ids = (await readEvents(tmp.path)).map((e) => e.id);
  assert.deepEqual(ids, acked); // the old log, whole
});
