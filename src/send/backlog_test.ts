import assert from "node:assert/strict";
import { buildEvent, type CapturedEvent, eventLine } from "../event/record.ts";
import { createIdFactory } from "../event/id.ts";
import { storePaths } from "../store/paths.ts";
import { eachLineSync, type Place, storeBacklog } from "./backlog.ts";

/** `n` records of endpoints `hook` and (every third) `other`, bodies of `size` bytes. */
function records(n: number, size = 20): CapturedEvent[] {
  const ids = createIdFactory();
  return Array.from({ length: n }, (_, i) =>
    buildEvent({
      id: ids(new Date()),
      endpoint: i % 3 === 2 ? "other" : "hook",
      receivedAt: new Date(),
      method: "POST",
      path: "/hook",
      query: "",
      headers: [["x-n", String(i)]],
      body: new TextEncoder().encode(`{"n":${i},"pad":"${"é".repeat(size)}"}`),
      remoteAddr: "127.0.0.1",
    }));
}

/** Every event of `hook` from `from` on, read `take` at a time as the forwarder's refills do. */
async function readAll(
  dir: string,
  from: Place,
  take: number,
  backlog = storeBacklog(storePaths(dir)),
  most = Infinity,
): Promise<{ got: string[]; at: Place }> {
  const got: string[] = [];
  let place = from;
  for (;;) {
    let n = 0;
    const end = await backlog.read(place, "hook", (event) => {
      if (n === take || got.length === most) return "stop";
      n++;
      got.push(event.id);
      return "take";
    });
    if (end.stopped === undefined) return { got, at: end.next };
    if (got.length === most) return { got, at: end.stopped };
    place = end.stopped;
  }
}

/** {@linkcode readAll}'s ids, its backlog closed after it (the log it holds open between reads). */
async function idsOf(dir: string, from: Place, take: number): Promise<string[]> {
  const backlog = storeBacklog(storePaths(dir));
  try {
    return (await readAll(dir, from, take, backlog)).got;
  } finally {
    backlog.close();
  }
}

Deno.test("read-back: every event of the endpoint once, in order, across refills and lines of any size", async () => {
  const dir = await Deno.makeTempDir({ prefix: "hooktap_backlog_read_" });
  try {
    // Ordinary lines, and lines past the scan's whole-line views (64 KiB) and its first read (256 KiB).
    const events = [...records(300), ...records(6, 40_000), ...records(3, 150_000), ...records(200)];
    await Deno.writeTextFile(storePaths(dir).events, events.map(eventLine).join(""));
    const want = events.filter((e) => e.endpoint === "hook").map((e) => e.id);
    for (const take of [1, 7, 32, 1000]) {
      assert.deepEqual(await idsOf(dir, { offset: 0, id: "" }, take), want, `${take} at a time`);
    }
    // From a place found by locate (the spill's start).
    const backlog = storeBacklog(storePaths(dir));
    const place = await backlog.locate(want[100]!);
    assert.ok(place !== undefined);
    assert.deepEqual(await idsOf(dir, place, 32), want.slice(100));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("read-back: a place the log no longer has (rewritten by prune, or cut shorter) is found again by id", async () => {
  const dir = await Deno.makeTempDir({ prefix: "hooktap_backlog_refind_" });
  try {
    const events = records(90);
    const path = storePaths(dir).events;
    await Deno.writeTextFile(path, events.map(eventLine).join(""));
    const hook = events.filter((e) => e.endpoint === "hook");
    const place = await storeBacklog(storePaths(dir)).locate(hook[40]!.id);
    assert.ok(place !== undefined);
    // Pruned: the first 30 records gone, so the place's offset now falls inside another line.
    await Deno.writeTextFile(path, events.slice(30).map(eventLine).join(""));
    assert.deepEqual(await idsOf(dir, place, 5), hook.slice(40).map((e) => e.id));
    // Cut shorter than the place: the place's id is found again (here: nothing at or after it is left).
    await Deno.writeTextFile(path, events.slice(0, 20).map(eventLine).join(""));
    assert.deepEqual(await idsOf(dir, place, 5), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("read-back: the log held open between reads is let go when prune writes a new file in its place, and the events appended to it are read", async () => {
  const dir = await Deno.makeTempDir({ prefix: "hooktap_backlog_held_" });
  const backlog = storeBacklog(storePaths(dir));
  try {
    const events = records(120);
    const path = storePaths(dir).events;
    await Deno.writeTextFile(path, events.slice(0, 90).map(eventLine).join(""));
    const hook = events.filter((e) => e.endpoint === "hook").map((e) => e.id);
    // Half read, 8 at a time: the backlog holds the log open.
    const first = await readAll(dir, { offset: 0, id: "" }, 8, backlog, 30);
    assert.deepEqual(first.got, hook.slice(0, 30));
    // Prune's way: a new file (the first 30 records gone) renamed over the log, then appends to it.
    await Deno.writeTextFile(`${path}.new`, events.slice(30, 90).map(eventLine).join(""));
    await Deno.rename(`${path}.new`, path);
    await Deno.writeTextFile(path, events.slice(90).map(eventLine).join(""), { append: true });
    const rest = await readAll(dir, first.at, 8, backlog);
    assert.deepEqual(rest.got, hook.slice(30), "the rest once each, in order, from the new file");
  } finally {
    backlog.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name:
    "read-back: the log is held open only while reads stop before its end (a lane behind), let go once one reaches it",
  ignore: Deno.build.os !== "linux", // counts /proc/self/fd
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "hooktap_backlog_let_go_" });
    const backlog = storeBacklog(storePaths(dir));
    const fds = () => [...Deno.readDirSync("/proc/self/fd")].length;
    try {
      await Deno.writeTextFile(storePaths(dir).events, records(60).map(eventLine).join(""));
      const before = fds();
      const part = await readAll(dir, { offset: 0, id: "" }, 8, backlog, 16);
      assert.equal(fds(), before + 1, "held while the read stopped before the end");
      await readAll(dir, part.at, 8, backlog, 8);
      assert.equal(fds(), before + 1, "held again by the next read that stopped before the end");
      backlog.rest(); // its lane waits for the app
      assert.equal(fds(), before, "let go while its lane waits");
      await readAll(dir, { offset: 0, id: "" }, 8, backlog);
      assert.equal(fds(), before, "let go once a read reached the end");
    } finally {
      backlog.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("eachLineSync: whole lines of any length in order, empty ones skipped, a last piece without newline torn, a stop kept", async () => {
  const dir = await Deno.makeTempDir({ prefix: "hooktap_backlog_lines_" });
  try {
    const long = "x".repeat(300 * 1024); // longer than two reads
    const text = `a\n\n${long}\nbc\n\n\nd\ntor`;
    const path = `${dir}/log`;
    await Deno.writeTextFile(path, text);
    using file = Deno.openSync(path);
    const decode = (b: Uint8Array) => new TextDecoder().decode(b);
    // A line's bytes are a view of a reused buffer: each is decoded during its call.
    const lines = (start: number, end: number, stopAfter = Infinity) => {
      const out: [number, string, boolean][] = [];
      eachLineSync(file, start, end, (at, bytes, torn) => out.push([at, decode(bytes), torn]) < stopAfter);
      return out;
    };
    const all = lines(0, text.length);
    const at = (s: string) => text.indexOf(s);
    assert.deepEqual(all, [
      [0, "a", false],
      [3, long, false],
      [at("bc"), "bc", false],
      [at("d\n"), "d", false],
      [at("tor"), "tor", true],
    ]);
    // A range that ends inside a line: that line is torn; from a line start in the middle.
    const cut = lines(at("bc"), at("d\n") + 1).map(([, line, torn]) => [line, torn]);
    assert.deepEqual(cut, [["bc", false], ["d", true]]);
    // Stopped by its visitor: no line after the one it stopped at; two scans in turn see their own bytes.
    assert.deepEqual(lines(0, text.length, 2).map(([at]) => at), [0, 3]);
    assert.deepEqual(lines(at("bc"), text.length).map(([, line]) => line), ["bc", "d", "tor"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
