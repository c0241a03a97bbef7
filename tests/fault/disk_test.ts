/**
 * The disk refuses writes while `hooktap dev` runs: a real full filesystem
 * (a small tmpfs mounted on `.hooktap`) and a real refused write (the event
 * log made immutable with `chattr +i`, which even root cannot write through
 * an open descriptor). Affected requests get 503, never 200; nothing
 * half-written remains; dev says so and recovers once writes work.
 *
 * Both need root (mount, chattr) and a filesystem that supports them; the
 * tests probe for that and are skipped, saying why, where they cannot run.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli, startDev, withTmpDir, writeFile } from "../_helpers.ts";
import { HttpConn } from "./_http.ts";
import { logText, makeEvents } from "../_store_fixture.ts";
import { LOAD_CONFIG, runLoad, splitLog } from "./_load.ts";

async function sh(cmd: string, ...args: string[]): Promise<boolean> {
  try {
    const { success } = await new Deno.Command(cmd, { args, stdout: "null", stderr: "null" }).output();
    return success;
  } catch {
    return false;
  }
}

async function probe(kind: "mount" | "chattr"): Promise<boolean> {
  if (Deno.build.os !== "linux") return false;
  const dir = await Deno.makeTempDir({ prefix: "hooktap_probe_" });
  try {
    if (kind === "mount") {
      const ok = await sh("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", dir);
      if (ok) await sh("umount", dir);
      return ok;
    }
    const file = join(dir, "f");
    await Deno.writeTextFile(file, "");
    const ok = await sh("chattr", "+i", file);
    if (ok) await sh("chattr", "-i", file);
    return ok;
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

const canMount = await probe("mount");
const canChattr = await probe("chattr");
const skipped = [
  canMount ? "" : "cannot mount a tmpfs here (not root?): the disk-full test is skipped",
  canChattr ? "" : "chattr +i does not work here: the refused-write test is skipped",
].filter(Boolean);
// deno-lint-ignore no-console
for (const why of skipped) console.warn(`disk_test: ${why}`);

const jsonOf = (i: number, size: number) => {
  const text = JSON.stringify({ i, pad: "x".repeat(size) });
  return { kind: "json" as const, contentType: "application/json", bytes: new TextEncoder().encode(text) };
};

/** Appends to `path` a page at a time until the disk refuses: then it is full, to the byte. */
async function fill(path: string): Promise<void> {
  using file = await Deno.open(path, { append: true, create: true });
  const page = new Uint8Array(4096);
  for (let i = 0; i < 100_000; i++) {
    try {
      await file.write(page);
    } catch {
      break;
    }
  }
  const byte = new Uint8Array(1);
  for (let i = 0; i < 4096; i++) {
    try {
      await file.write(byte);
    } catch {
      return;
    }
  }
}

/** Every line parses, the file ends cleanly, and it holds exactly the acknowledged ids. */
async function assertOnlyAcknowledged(dir: string, acked: Set<string>): Promise<void> {
  const { lines, torn } = splitLog(await Deno.readTextFile(join(dir, ".hooktap", "events.jsonl")));
  assert.equal(torn, "", "nothing half-written remains at the end");
  const ids = lines.map((l) => JSON.parse(l).id as string);
  assert.deepEqual(new Set(ids), acked, "the log holds exactly the acknowledged events");
  assert.equal(ids.length, acked.size, "each once");
}

Deno.test({
  name: "a full disk: 503 with a clear body (never 200), nothing half-written, dev says so and recovers",
  ignore: !canMount,
  async fn() {
    await using tmp = await withTmpDir();
    await writeFile(tmp.path, "hooktap.config.ts", LOAD_CONFIG);
    const data = join(tmp.path, ".hooktap");
    await Deno.mkdir(data);
    assert.ok(await sh("mount", "-t", "tmpfs", "-o", "size=512k,mode=0700", "tmpfs", data));
    try {
      // Leave about 160 KiB free.
      await Deno.writeFile(join(data, "filler"), new Uint8Array(340 * 1024));
      await using dev = await startDev(tmp.path, ["--quiet"]);

      // Concurrent writers so failures hit whole batches, some written only in part.
      let refused = 0;
      const result = await runLoad({
        port: dev.port,
        connections: 8,
        body: (i) => jsonOf(i, 3000 + (i % 7) * 1500),
        stop: () => refused >= 40,
        onStatus: (status) => {
          if (status === 503) refused++;
        },
      });
      const acked = new Set(result.acked.keys());
      assert.ok(acked.size > 5, "some events fit before the disk filled");
      assert.ok((result.statuses.get(503) ?? 0) >= 1, "the disk filled up");
      assert.deepEqual([...result.statuses.keys()].filter((s) => s !== 200 && s !== 503), []);
      for (const body of result.otherBodies) {
        assert.match(
          body,
          /^503 hooktap could not save this event: the disk is full .*Nothing was stored; retry later\./,
        );
      }
      assert.match(dev.stderr(), /error: cannot save events: the disk is full/);
      await assertOnlyAcknowledged(tmp.path, acked);

      // Space comes back: the very next request is stored, and dev says writes work again.
      await Deno.remove(join(data, "filler"));
      const conn = await HttpConn.open(dev.port);
      const res = await conn.request({ body: '{"after":"space"}' });
      conn.close();
      assert.equal(res.status, 200, res.text());
      acked.add(res.headers.get("x-hooktap-event-id")!);
      await new Promise((r) => setTimeout(r, 100));
      assert.match(dev.stderr(), /Writes work again; events are being saved\./);
      assert.equal(await dev.stop("SIGTERM"), 0);
      await assertOnlyAcknowledged(tmp.path, acked);
      // deno-lint-ignore no-console
      console.log(
        `disk full: ${result.sent + 1} sent, ${acked.size} acknowledged and stored, ` +
          `${result.statuses.get(503)} refused with 503`,
      );
    } finally {
      await sh("umount", "-l", data);
    }
  },
});

Deno.test({
  name:
    "writes refused mid-run (chattr +i): 503, never 200, nothing half-written, recovers when allowed again",
  ignore: !canChattr,
  async fn() {
    await using tmp = await withTmpDir();
    await writeFile(tmp.path, "hooktap.config.ts", LOAD_CONFIG);
    const events = join(tmp.path, ".hooktap", "events.jsonl");
    await using dev = await startDev(tmp.path, ["--quiet"]);
    try {
      const before = await runLoad({
        port: dev.port,
        connections: 4,
        total: 50,
        body: (i) => jsonOf(i, 200),
      });
      assert.deepEqual([...before.statuses], [[200, 50]]);
      assert.ok(await sh("chattr", "+i", events));
      const during = await runLoad({
        port: dev.port,
        connections: 4,
        total: 40,
        body: (i) => jsonOf(i, 200),
      });
      assert.deepEqual([...during.statuses], [[503, 40]], "not one 200 while writes are refused");
      assert.match(during.otherBodies[0]!, /^503 hooktap could not save this event: permission denied/);
      assert.match(dev.stderr(), /error: cannot save events: permission denied writing the event log/);
      assert.ok(await sh("chattr", "-i", events));
      const after = await runLoad({ port: dev.port, connections: 4, total: 30, body: (i) => jsonOf(i, 200) });
      assert.deepEqual([...after.statuses], [[200, 30]]);
      assert.match(dev.stderr(), /Writes work again/);
      assert.equal(await dev.stop("SIGTERM"), 0);
      await assertOnlyAcknowledged(tmp.path, new Set([...before.acked.keys(), ...after.acked.keys()]));
    } finally {
      await sh("chattr", "-i", events);
    }
  },
});

Deno.test({
  name:
    "a full disk before dev or prune starts: the message names it and the fix, non-zero exit, the log unchanged",
  ignore: !canMount,
  async fn() {
    await using tmp = await withTmpDir();
    await writeFile(tmp.path, "hooktap.config.ts", LOAD_CONFIG);
    const data = join(tmp.path, ".hooktap");
    await Deno.mkdir(data);
    assert.ok(await sh("mount", "-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", data));
    try {
      const log = new TextEncoder().encode(logText(makeEvents(5)));
      await Deno.writeFile(join(data, "events.jsonl"), log, { mode: 0o600 });
      await fill(join(data, "filler"));
      const fix =
        /the disk is full \(No space left on device.*\)\..* To fix it, free some space on the disk that holds \.hooktap \(df -h \.hooktap shows it\)\./;
      const dev = await runCli(["dev", "--port", "0"], { cwd: tmp.path, timeoutMs: 20_000 });
      assert.notEqual(dev.code, 0, dev.stderr);
      assert.match(dev.stderr, fix);
      await fill(join(data, "filler")); // whatever dev's try may have freed
      const prune = await runCli(["prune", "--keep", "2"], { cwd: tmp.path });
      assert.notEqual(prune.code, 0, prune.stderr);
      assert.match(prune.stderr, /Cannot write the compacted log .*The event log was not changed\./);
      assert.match(prune.stderr, fix);
      assert.deepEqual(
        await Deno.readFile(join(data, "events.jsonl")),
        log,
        "the log is byte for byte as it was",
      );
    } finally {
      await sh("umount", "-l", data);
    }
  },
});

Deno.test({
  name:
    "a data directory nobody may write (chattr +i): dev and prune name the file and the fix, the log unchanged",
  ignore: !canChattr,
  async fn() {
    await using tmp = await withTmpDir();
    await writeFile(tmp.path, "hooktap.config.ts", LOAD_CONFIG);
    const data = join(tmp.path, ".hooktap");
    const log = logText(makeEvents(3));
    await writeFile(tmp.path, ".hooktap/events.jsonl", log);
    await Deno.writeTextFile(join(data, ".gitignore"), "*\n");
    assert.ok(await sh("chattr", "+i", data));
    try {
      const fix = /permission denied \(.*\)\. To fix it, make \.hooktap and its files writable by you/;
      const dev = await runCli(["dev", "--port", "0"], { cwd: tmp.path, timeoutMs: 20_000 });
      assert.notEqual(dev.code, 0, dev.stderr);
      assert.match(dev.stderr, fix);
      const prune = await runCli(["prune", "--keep", "1"], { cwd: tmp.path });
      assert.notEqual(prune.code, 0, prune.stderr);
      assert.match(prune.stderr, fix);
    } finally {
      await sh("chattr", "-i", data);
    }
    assert.equal(await Deno.readTextFile(join(data, "events.jsonl")), log);
  },
});
