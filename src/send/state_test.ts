import assert from "node:assert/strict";
import { Watermark } from "./state.ts";

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
