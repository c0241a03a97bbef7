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
