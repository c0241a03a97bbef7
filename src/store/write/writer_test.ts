import assert from "node:assert/strict";
import { join } from "node:path";
import { buildEvent, type CapturedEvent, parseEventLine } from "../../event/record.ts";
import { acquireWriterLock } from "./lock.ts";
import { storePaths } from "../paths.ts";
import { LogGoneError, openEventWriter } from "./writer.ts";

function event(i: number, endpoint = "default"): CapturedEvent {
  return buildEvent({
    id: `evt_20260101_${String(i).padStart(26, "0")}`,
    endpoint,
    receivedAt: new Date(0),
    method: "POST",
    path: "/webhook",
    query: "",
    headers: [["content-type", "text/plain"]],
    body: new TextEncoder().encode(`body ${i}`),
    remoteAddr: "127.0.0.1",
  });
}

async function lines(file: string): Promise<string[]> {
  return (await Deno.readTextFile(file)).split("\n").filter((l) => l !== "");
}

Deno.test("writer creates an owner-only data dir with a .gitignore and an owner-only log", async () => {
  const dir = await Deno.makeTempDir();
  const paths = storePaths(join(dir, ".hooktap"));
  const writer = await openEventWriter(paths);
  await writer.append(event(1));
  await writer.close();
  assert.equal((await Deno.stat(paths.dir)).mode! & 0o777, 0o700);
  assert.equal((await Deno.stat(paths.events)).mode! & 0o777, 0o600);
  assert.match(await Deno.readTextFile(join(paths.dir, ".gitignore")), /^\*$/m);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("writer group-commits concurrent appends: whole lines, in order, fewer syncs than events", async () => {
  const dir = await Deno.makeTempDir();
  const paths = storePaths(join(dir, ".hooktap"));
  const writer = await openEventWriter(paths);
  const events = Array.from({ length: 500 }, (_, i) => event(i, `e${i % 3}`));
  await Promise.all(events.map((e) => writer.append(e)));
  assert.equal(writer.count, 500);
  assert.ok(writer.batches < 500 && writer.batches >= 1, `batches: ${writer.batches}`);
  assert.equal(writer.latest.get("e1"), events[499]!.id); // 499 % 3 === 1
  assert.equal(writer.latest.get("e0"), events[498]!.id);
  assert.equal(writer.size, (await Deno.stat(paths.events)).size);
  await writer.close();
  const stored = (await lines(paths.events)).map((l) => parseEventLine(l)?.id);
  assert.deepEqual(stored, events.map((e) => e.id));
  await Deno.remove(dir, { recursive: true });
});

Deno.test("writer cuts a torn last line before appending, so no record is glued to it", async () => {
  const dir = await Deno.makeTempDir();
  const paths = storePaths(join(dir, ".hooktap"));
  let writer = await openEventWriter(paths);
  await writer.append(event(1));
  await writer.close();
  await Deno.writeTextFile(paths.events, '{"v":1,"id":"evt_2026', { append: true });
  writer = await openEventWriter(paths);
  assert.equal(writer.repairedBytes, 21);
  await writer.append(event(2));
  await writer.close();
  const stored = await lines(paths.events);
  assert.deepEqual(stored.map((l) => parseEventLine(l)?.id), [event(1).id, event(2).id]);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("a second writer lock on the same data dir is refused, naming the holder", async () => {
  const dir = await Deno.makeTempDir();
  const paths = storePaths(join(dir, ".hooktap"));
  await Deno.mkdir(paths.dir);
  const first = await acquireWriterLock(paths);
  await first.describe({ pid: 4242, port: 8787, startedAt: "2026-01-01T00:00:00.000Z" });
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `import { acquireWriterLock } from "${import.meta.resolve("./lock.ts")}";
      import { storePaths } from "${import.meta.resolve("../paths.ts")}";
      try { await acquireWriterLock(storePaths(${JSON.stringify(paths.dir)})); console.log("ACQUIRED"); }
      catch (e) { console.log(e.message); }`,
    ],
    stdout: "piped",
    stderr: "piped",
  });
  const out = new TextDecoder().decode((await child.output()).stdout);
  assert.match(
    out,
    /hooktap dev \(pid 4242, port 8787, started 2026-01-01T00:00:00\.000Z\) is already writing/,
  );
  first.release();
  const after = new TextDecoder().decode((await child.output()).stdout);
  assert.equal(after.trim(), "ACQUIRED");
  await Deno.remove(dir, { recursive: true });
});

Deno.test("a log deleted or moved away while open: the next batch is refused, not acknowledged, and `gone` says so", async (t) => {
  for (const how of ["deleted", "moved"] as const) {
    await t.step(how, async () => {
      const dir = await Deno.makeTempDir();
      const paths = storePaths(join(dir, ".hooktap"));
      const writer = await openEventWriter(paths, { checkEveryMs: 0 }); // the check before acknowledging alone
      let gone: LogGoneError | undefined;
      void writer.gone.then((e) => (gone = e));
      await writer.append(event(1));
      if (how === "deleted") await Deno.remove(paths.dir, { recursive: true });
      else await Deno.rename(paths.dir, join(dir, "elsewhere"));
      await assert.rejects(writer.append(event(2)), LogGoneError);
      await assert.rejects(writer.append(event(3)), LogGoneError); // and every later one
      assert.ok(gone instanceof LogGoneError);
      assert.match(gone.message, /was deleted or moved while hooktap dev ran/);
      assert.equal(writer.count, 1);
      await writer.close();
      if (how === "moved") {
        // The refused lines are cut off the moved file again: it holds what was acknowledged, whole.
        const moved = await lines(join(dir, "elsewhere", "events.jsonl"));
        assert.deepEqual(moved.map((l) => parseEventLine(l)?.id), [event(1).id]);
      }
      await Deno.remove(dir, { recursive: true });
    });
  }
});

Deno.test("a log deleted while idle is noticed by the periodic check, without an append", async () => {
  const dir = await Deno.makeTempDir();
  const paths = storePaths(join(dir, ".hooktap"));
  const writer = await openEventWriter(paths, { checkEveryMs: 20 });
  await writer.append(event(1));
  await Deno.remove(paths.events);
  const alive = setTimeout(() => {}, 10_000); // the check's timer is unref'd: dev's listener keeps dev alive
  const gone = await writer.gone;
  clearTimeout(alive);
  assert.ok(gone instanceof LogGoneError);
  await writer.close();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("a compaction that replaces the log (pause) is not taken for a lost log", async () => {
  const dir = await Deno.makeTempDir();
  const paths = storePaths(join(dir, ".hooktap"));
  const writer = await openEventWriter(paths, { checkEveryMs: 1 });
  let gone = false;
  void writer.gone.then(() => (gone = true));
  await writer.append(event(1));
  for (let i = 0; i < 20; i++) {
    await writer.pause(async () => {
      const text = await Deno.readTextFile(paths.events);
      await Deno.writeTextFile(paths.compactTemp, text);
      await new Promise((r) => setTimeout(r, 3)); // the periodic check fires meanwhile
      await Deno.rename(paths.compactTemp, paths.events);
    });
    await writer.append(event(2 + i));
  }
  assert.equal(gone, false);
  assert.equal(writer.count, 21);
  await writer.close();
  assert.equal((await lines(paths.events)).length, 21);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("a batch over the synchronous write's size (a large body) is written whole, in order, beside small ones", async () => {
  const dir = await Deno.makeTempDir();
  const paths = storePaths(join(dir, ".hooktap"));
  const writer = await openEventWriter(paths);
  const large = buildEvent({
    id: event(2).id,
    endpoint: "default",
    receivedAt: new Date(0),
    method: "POST",
    path: "/webhook",
    query: "",
    headers: [["content-type", "text/plain"]],
    body: new TextEncoder().encode("é\u{1F600}x".repeat(300_000)), // ~2.1 MB of UTF-8: the asynchronous write
    remoteAddr: "127.0.0.1",
  });
  const events = [event(1), large, event(3), event(4)];
  await Promise.all(events.map((e) => writer.append(e)));
  assert.equal(writer.count, 4);
  await writer.close();
  const text = await Deno.readTextFile(paths.events);
  assert.equal(text, events.map((e) => JSON.stringify(e) + "\n").join(""));
  assert.equal(writer.size, new TextEncoder().encode(text).length);
  await Deno.remove(dir, { recursive: true });
});
