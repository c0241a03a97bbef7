import assert from "node:assert/strict";
import { linesBackward, linesForward, lineStartAtOrAfter } from "./lines.ts";
import { tempStore } from "../../../tests/_store_fixture.ts";

const dec = new TextDecoder();

async function collect(it: AsyncIterable<{ start: number; bytes: Uint8Array; torn: boolean }>) {
  const out: [number, string, boolean][] = [];
  for await (const l of it) out.push([l.start, dec.decode(l.bytes), l.torn]);
  return out;
}

const TEXT = "alpha\n" + "b".repeat(50) + "\n\ngamma\ndelta-torn";

Deno.test("linesBackward() yields every line last first, across chunk borders, the torn tail marked", async () => {
  await using store = await tempStore(TEXT);
  using file = await Deno.open(store.events);
  const size = TEXT.length;
  for (const chunkSize of [3, 7, 64, 65536]) {
    assert.deepEqual(await collect(linesBackward(file, size, { chunkSize })), [
      [64, "delta-torn", true],
      [58, "gamma", false],
      [6, "b".repeat(50), false],
      [0, "alpha", false],
    ]);
  }
});

Deno.test("linesBackward() stops at its start offset", async () => {
  await using store = await tempStore(TEXT);
  using file = await Deno.open(store.events);
  const lines = await collect(linesBackward(file, 64, { start: 6, chunkSize: 5 }));
  assert.deepEqual(lines, [[58, "gamma", false], [6, "b".repeat(50), false]]);
});

Deno.test("linesForward() yields every line first first, the unterminated tail marked torn", async () => {
  await using store = await tempStore(TEXT);
  using file = await Deno.open(store.events);
  for (const chunkSize of [4, 9, 65536]) {
    assert.deepEqual(await collect(linesForward(file, 0, TEXT.length, chunkSize)), [
      [0, "alpha", false],
      [6, "b".repeat(50), false],
      [58, "gamma", false],
      [64, "delta-torn", true],
    ]);
  }
});

Deno.test("lineStartAtOrAfter() finds the next line start from any offset", async () => {
  await using store = await tempStore(TEXT);
  using file = await Deno.open(store.events);
  assert.deepEqual(await lineStartAtOrAfter(file, 0, TEXT.length), 0);
  assert.deepEqual(await lineStartAtOrAfter(file, 6, TEXT.length), 6);
  assert.deepEqual(await lineStartAtOrAfter(file, 7, TEXT.length, 4), 57);
  assert.deepEqual(await lineStartAtOrAfter(file, 65, TEXT.length), TEXT.length);
});
