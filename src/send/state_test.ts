import assert from "node:assert/strict";
import { join } from "node:path";
import { readForwardState, stoppedCleanly, Watermark, writeForwardState } from "./state.ts";

/** How hooktap before the `run` field read the file: a watermark only when `v` is 1 and `settledThrough` a string. */
function olderReader(text: string): string | undefined {
  try {
    const value = JSON.parse(text);
    if (value.v === 1 && typeof value.settledThrough === "string") return value.settledThrough;
  } catch { /* none */ }
  return undefined;
}

Deno.test("forward_state.json: old files without `run`, new files without a watermark, and what older hooktap reads", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "forward_state.json");
    assert.equal(await readForwardState(path), undefined, "no file");
    assert.equal(stoppedCleanly(undefined), false);
    // A file of older hooktap: its watermark, and the run taken as not clean.
    await Deno.writeTextFile(path, '{"v":1,"settledThrough":"evt_a"}\n');
    const old = await readForwardState(path);
    assert.deepEqual(old, { v: 1, settledThrough: "evt_a" });
    assert.equal(stoppedCleanly(old), false);
    // Written now, before any event settled: no watermark, which older hooktap reads as none.
    for (const run of ["running", "clean"] as const) {
      await writeForwardState(path, { v: 1, run });
      const text = await Deno.readTextFile(path);
      assert.deepEqual(await readForwardState(path), { v: 1, run });
      assert.equal(stoppedCleanly(await readForwardState(path)), run === "clean");
      assert.equal(olderReader(text), undefined);
    }
    // With a watermark: both read it.
    await writeForwardState(path, { v: 1, settledThrough: "evt_b", run: "clean" });
    assert.deepEqual(await readForwardState(path), { v: 1, settledThrough: "evt_b", run: "clean" });
    assert.equal(olderReader(await Deno.readTextFile(path)), "evt_b");
    // A `run` this version does not know is not clean; the watermark stays.
    await Deno.writeTextFile(path, '{"v":1,"settledThrough":"evt_c","run":"paused"}');
    assert.deepEqual(await readForwardState(path), { v: 1, settledThrough: "evt_c" });
    // Unreadable files: no watermark, not clean.
    for (
      const text of [
        '{"v":1,"settledThrough":7,"run":"clean"}',
        '{"v":2,"run":"clean"}',
        '{"v":1,"run":"cl',
        "null",
      ]
    ) {
      await Deno.writeTextFile(path, text);
      assert.equal(await readForwardState(path), undefined, text);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("Watermark moves only past events with no earlier one pending", () => {
  const w = new Watermark();
  for (const id of ["a", "b", "c"]) w.take(id);
  assert.equal(w.settle("b"), false);
  assert.equal(w.mark, undefined);
  assert.equal(w.settle("a"), true);
  assert.equal(w.mark, "b");
  w.settle("c");
  assert.equal(w.mark, "c");
});

/** The first version's rule, plainly: the max settled id below every pending one (never moving back). */
class Plain {
  outstanding = new Set<string>();
  settled: string[] = [];
  mark: string | undefined;
  take(id: string) {
    this.outstanding.add(id);
  }
  settle(id: string): boolean {
    this.outstanding.delete(id);
    this.settled.push(id);
    let lowest: string | undefined;
    for (const o of this.outstanding) if (lowest === undefined || o < lowest) lowest = o;
    let best = this.mark;
    const keep: string[] = [];
    for (const s of this.settled) {
      if (lowest === undefined || s < lowest) {
        if (best === undefined || s > best) best = s;
      } else keep.push(s);
    }
    this.settled = keep;
    const moved = best !== this.mark;
    this.mark = best;
    return moved;
  }
}

Deno.test("Watermark moves exactly as the plain rule does, in any taking and settling order", () => {
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let round = 0; round < 200; round++) {
    const w = new Watermark();
    const plain = new Plain();
    const order = Array.from({ length: 60 }, (_, i) => `evt_${String(i).padStart(3, "0")}`);
    for (let i = 0; i < 6; i++) { // a few taken out of order (resumed events, concurrent lanes)
      const a = Math.floor(rand() * order.length), b = Math.floor(rand() * order.length);
      [order[a], order[b]] = [order[b]!, order[a]!];
    }
    const pending: string[] = [];
    const step = (id: string) => assert.equal(w.settle(id), plain.settle(id), `settle ${id}`);
    for (const id of order) {
      w.take(id);
      plain.take(id);
      pending.push(id);
      while (pending.length > 0 && rand() < 0.45) {
        step(pending.splice(Math.floor(rand() * pending.length), 1)[0]!);
      }
      assert.equal(w.mark, plain.mark);
    }
    while (pending.length > 0) step(pending.splice(Math.floor(rand() * pending.length), 1)[0]!);
    assert.equal(w.mark, plain.mark);
  }
});
