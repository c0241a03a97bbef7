/**
 * The data directory deleted or moved away while `hooktap dev` runs (a
 * developer's `rm -rf .hooktap` to start clean): the log dev holds open is
 * no longer where any reader looks, so an event written to it would be
 * acknowledged and lost. dev refuses it (503: the sender retries), stops,
 * and says why; the waiting deliveries are not promised to a next run.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli, startDev, withTmpDir, writeFile } from "../_helpers.ts";
import { startApp, until, unusedPort } from "../_app.ts";

const config = (forward?: string) =>
  `export default { port: 0, endpoints: [{ name: "default", path: "/webhook", method: "POST"${
    forward === undefined ? "" : `, forward: ${JSON.stringify(forward)}`
  } }] };\n`;

async function post(url: string, body: string): Promise<number | string> {
  try {
    const res = await fetch(`${url}/webhook`, { method: "POST", body });
    await res.body?.cancel();
    return res.status;
  } catch (error) {
    return (error as Error).name; // dev already stopped: the connection is refused, which senders retry too
  }
}

/** The exit code, or "running" when dev is still up after `ms`. */
async function exited(child: Deno.ChildProcess, ms: number): Promise<number | "running"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"running">((r) => timer = setTimeout(() => r("running"), ms));
  const code = await Promise.race([child.status.then((s) => s.code), late]);
  clearTimeout(timer);
  return code;
}

for (const how of ["deleted", "moved away"] as const) {
  Deno.test(`.hooktap ${how} while dev runs: no later event is acknowledged; dev stops and says why`, async () => {
    await using tmp = await withTmpDir();
    await writeFile(tmp.path, "hooktap.config.ts", config());
    await using dev = await startDev(tmp.path, ["--quiet"], {
      permissions: ["--allow-net", "--allow-read=.", "--allow-write=."],
    });
    assert.equal(await post(dev.url, "kept"), 200);
    const dir = join(tmp.path, ".hooktap");
    if (how === "deleted") await Deno.remove(dir, { recursive: true });
    else await Deno.rename(dir, join(tmp.path, "old-hooktap"));
    // Sent at once: before the idle check can notice, so the check before acknowledging must refuse it.
    const after = await post(dev.url, "after the delete");
    assert.notEqual(after, 200, "an event written to a log no reader sees must not be acknowledged");
    const code = await exited(dev.child, 10_000);
    await dev.stop();
    assert.equal(code, 1, `dev stops (exit 1):\n${dev.stderr()}`);
    assert.match(
      dev.stderr(),
      /hooktap dev stopped: \.hooktap\/events\.jsonl was deleted or moved away while it ran/,
    );
    assert.match(dev.stderr(), /The 1 event captured this session before that was in it\./);
    assert.doesNotMatch(dev.stderr(), /Stopped\. \d+ events? captured/, "no summary that counts lost events");
    assert.doesNotMatch(dev.stderr(), /Answering 503 until writes work again/);
    if (how === "moved away") {
      const moved = await Deno.readTextFile(join(tmp.path, "old-hooktap", "events.jsonl"));
      assert.deepEqual(moved.split("\n").filter(Boolean).map((l) => JSON.parse(l).body), ["kept"]);
    }
  });
}

Deno.test(".hooktap deleted while dev is idle: dev notices within seconds, without a request", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", config());
  await using dev = await startDev(tmp.path, ["--quiet"]);
  await Deno.remove(join(tmp.path, ".hooktap"), { recursive: true });
  const code = await exited(dev.child, 10_000);
  await dev.stop();
  assert.equal(code, 1, dev.stderr());
  assert.match(dev.stderr(), /was deleted or moved away while it ran/);
  assert.doesNotMatch(dev.stderr(), /captured this session before that/, "none was captured");
  assert.match(dev.stderr(), /to clear the events while dev runs, use .*rm --all\)/);
});

Deno.test(".hooktap deleted with deliveries waiting for the app: dev does not promise them to the next run", async () => {
  await using tmp = await withTmpDir();
  const app = `http://127.0.0.1:${unusedPort()}/hook`; // nothing listens: the deliveries wait
  await writeFile(tmp.path, "hooktap.config.ts", config(app));
  await using dev = await startDev(tmp.path, ["--quiet"], {
    permissions: ["--allow-net", "--allow-read=.", "--allow-write=."],
  });
  for (let i = 0; i < 3; i++) assert.equal(await post(dev.url, `waiting ${i}`), 200);
  await Deno.remove(join(tmp.path, ".hooktap"), { recursive: true });
  const code = await exited(dev.child, 10_000);
  await dev.stop();
  assert.equal(code, 1, dev.stderr());
  assert.match(
    dev.stderr(),
    /3 deliveries still waiting for your app were not sent: their events were in the event log that was deleted or moved/,
  );
  assert.doesNotMatch(dev.stderr(), /the next .*dev.* (delivers|sends) them/);
});

Deno.test(".hooktap deleted while dev forwards to a live app: dev's own stop message, no forward_state.json error", async () => {
  await using tmp = await withTmpDir();
  await using app = startApp(0, () => ({ status: 200 }));
  await writeFile(tmp.path, "hooktap.config.ts", config(`http://127.0.0.1:${app.port}/hook`));
  await using dev = await startDev(tmp.path, ["--quiet"], {
    permissions: ["--allow-net", "--allow-read=.", "--allow-write=."],
  });
  assert.equal(await post(dev.url, "delivered"), 200);
  await until(() => app.requests.length === 1, "the first delivery");
  await Deno.remove(join(tmp.path, ".hooktap"), { recursive: true });
  // Stored before dev notices (or refused): its delivery settles after the directory is gone.
  await post(dev.url, "after the delete");
  const code = await exited(dev.child, 10_000);
  await dev.stop();
  assert.equal(code, 1, dev.stderr());
  assert.match(dev.stderr(), /was deleted or moved away while it ran/);
  // dev stops and says why: the forwarder's state file, gone with its directory, is no error of its own.
  assert.doesNotMatch(dev.stderr(), /forward_state\.json|No such file/);
  const errors = dev.stderr().split("\n").filter((l) => l.startsWith("error:"));
  assert.deepEqual(errors.map((l) => l.slice(0, 27)), ["error: hooktap dev stopped:"], dev.stderr());
});

Deno.test(".hooktap/dev.lock deleted while dev runs (thought stale): dev takes it again, a second dev is refused", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", config());
  await using dev = await startDev(tmp.path, ["--quiet"]);
  await Deno.remove(join(tmp.path, ".hooktap", "dev.lock"));
  let owner = "";
  for (let i = 0; i < 100 && owner === ""; i++) {
    await new Promise((r) => setTimeout(r, 50));
    owner = await Deno.readTextFile(join(tmp.path, ".hooktap", "dev.lock")).catch(() => "");
  }
  assert.equal(JSON.parse(owner).pid, dev.child.pid, "the lock file is back, naming dev");
  const second = await runCli(["dev", "--port", "0", "--no-ui"], { cwd: tmp.path });
  assert.notEqual(second.code, 0);
  assert.match(second.stderr, new RegExp(`hooktap dev \\(pid ${dev.child.pid}\\b.*is already writing`));
  assert.equal(await post(dev.url, "still the only writer"), 200);
  assert.equal(await dev.stop(), 0);
});

Deno.test(".hooktap/dev.lock replaced by another process's: dev stops (exit 1), leaving the log and the other's socket", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", config());
  await using dev = await startDev(tmp.path, ["--quiet"]);
  assert.equal(await post(dev.url, "before"), 200);
  const hooktap = join(tmp.path, ".hooktap");
  // Another writer in its place, as a second dev would be: its own socket, then the new lock file it holds.
  await Deno.remove(join(hooktap, "control.sock"));
  using other = Deno.listen({ transport: "unix", path: join(hooktap, "control.sock") });
  // Made aside, owned and locked, then put in the place of dev's (whose file is then deleted) in one step.
  using lock = await Deno.open(join(hooktap, "other.lock"), { read: true, write: true, createNew: true });
  await lock.write(
    new TextEncoder().encode(JSON.stringify({ pid: 4242, port: 1234, startedAt: "x" }) + "\n"),
  );
  await lock.lock(true);
  await Deno.rename(join(hooktap, "other.lock"), join(hooktap, "dev.lock"));
  const code = await exited(dev.child, 10_000);
  await dev.stop();
  assert.equal(code, 1, dev.stderr());
  assert.match(
    dev.stderr(),
    /hooktap dev stopped: .*dev\.lock was deleted while this hooktap dev ran, and hooktap dev \(pid 4242, port 1234\) started in its place/,
  );
  const log = (await Deno.readTextFile(join(hooktap, "events.jsonl"))).split("\n").filter(Boolean);
  assert.deepEqual(log.map((l) => JSON.parse(l).body), ["before"], "the log is left whole");
  assert.ok((await Deno.lstat(join(hooktap, "control.sock"))).isSocket, "the other's control socket stays");
  other.close();
});
