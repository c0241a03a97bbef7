import assert from "node:assert/strict";
import {
  eachLineBackward,
  eachTextLineSync,
  type Line,
  lineStartAtOrAfter,
  readLine,
  scanBackward,
  scanForward,
} from "./lines.ts";
import { tempStore } from "../../../tests/_store_fixture.ts";

const dec = new TextDecoder();

async function collect(file: Deno.FsFile, it: AsyncIterable<Line>) {
  const out: [number, string, boolean][] = [];
  for await (const l of it) {
    const whole = await readLine(file, l);
    assert.equal(whole.length, l.length);
    assert.deepEqual(l.head, whole.subarray(0, l.head.length));
    out.push([l.start, dec.decode(whole), l.torn]);
  }
  return out;
}

const TEXT = "alpha\n" + "b".repeat(50) + "\n\ngamma\ndelta-torn";

Deno.test("scanBackward() yields every line last first, across chunk borders, the torn tail marked", async () => {
  await using store = await tempStore(TEXT);
  using file = await Deno.open(store.events);
  const size = TEXT.length;
  for (const chunkSize of [3, 7, 64, 65536]) {
    for (const headBytes of [2, 8, 4096]) {
      assert.deepEqual(await collect(file, scanBackward(file, size, { chunkSize, headBytes })), [
        [64, "delta-torn", true],
        [58, "gamma", false],
        [6, "b".repeat(50), false],
        [0, "alpha", false],
      ]);
    }
  }
});

Deno.test("scanBackward() stops at its start offset", async () => {
  await using store = await tempStore(TEXT);
  using file = await Deno.open(store.events);
  const lines = await collect(file, scanBackward(file, 64, { start: 6, chunkSize: 5 }));
  assert.deepEqual(lines, [[58, "gamma", false], [6, "b".repeat(50), false]]);
});

Deno.test("scanForward() yields every line first first, the unterminated tail marked torn", async () => {
  await using store = await tempStore(TEXT);
  using file = await Deno.open(store.events);
  for (const chunkSize of [4, 9, 65536]) {
    for (const headBytes of [2, 8, 4096]) {
      assert.deepEqual(await collect(file, scanForward(file, 0, TEXT.length, { chunkSize, headBytes })), [
        [0, "alpha", false],
        [6, "b".repeat(50), false],
        [58, "gamma", false],
        [64, "delta-torn", true],
      ]);
    }
  }
});

Deno.test("scans keep only each line's head: a multi-MiB line is crossed, not held", async () => {
  const big = "x".repeat(3 * 1024 * 1024 + 17);
  const text = `first\n${big}\nlast\n`;
  await using store = await tempStore(text);
  using file = await Deno.open(store.events);
  for (const it of [scanForward(file, 0, text.length), scanBackward(file, text.length)]) {
    const lines: Line[] = [];
    for await (const l of it) lines.push(l);
    const middle = lines.find((l) => l.start === 6)!;
    assert.equal(middle.length, big.length);
    assert.equal(middle.head.length, 4096);
    assert.deepEqual(lines.map((l) => l.start).sort((a, b) => a - b), [0, 6, 7 + big.length]);
    assert.equal(dec.decode(await readLine(file, middle)), big);
  }
  assert.equal(await lineStartAtOrAfter(file, 100, text.length), 7 + big.length);
});

Deno.test("lineStartAtOrAfter() finds the next line start from any offset", async () => {
  await using store = await tempStore(TEXT);
  using file = await Deno.open(store.events);
  assert.deepEqual(await lineStartAtOrAfter(file, 0, TEXT.length), 0);
  assert.deepEqual(await lineStartAtOrAfter(file, 6, TEXT.length), 6);
  assert.deepEqual(await lineStartAtOrAfter(file, 7, TEXT.length, 4), 57);
  assert.deepEqual(await lineStartAtOrAfter(file, 65, TEXT.length), TEXT.length);
});

Deno.test("eachLineBackward() visits every whole line last first, across read borders, never the torn tail", async () => {
  const whole = "alpha\n" + "b".repeat(50) + "\n\ngamma\n";
  for (
    const [text, expected] of [
      [TEXT, ["gamma", "b".repeat(50), "alpha"]],
      [whole, ["gamma", "b".repeat(50), "alpha"]],
      ["no newline yet", []],
      ["\n\n", []],
      ["x\n", ["x"]],
    ] as const
  ) {
    await using store = await tempStore(text);
    using file = await Deno.open(store.events);
    for (const readBytes of [1, 2, 3, 7, 64, 1 << 20]) {
      for (const background of [false, true]) {
        const seen: string[] = [];
        await eachLineBackward(file, text.length, (data, start, end) => {
          seen.push(dec.decode(data.subarray(start, end)));
          return false;
        }, { readBytes, background });
        assert.deepEqual(
          seen,
          expected,
          `${JSON.stringify(text)}, reads of ${readBytes}, background ${background}`,
        );
      }
    }
  }
});

Deno.test("eachLineBackward() stops when the visitor says so, and refuses a log that shrank", async () => {
  await using store = await tempStore(TEXT);
  using file = await Deno.open(store.events);
  const seen: string[] = [];
  await eachLineBackward(file, TEXT.length, (data, start, end) => {
    seen.push(dec.decode(data.subarray(start, end)));
    return seen.length === 2;
  }, { readBytes: 4 });
  assert.deepEqual(seen, ["gamma", "b".repeat(50)]);
  await assert.rejects(() => eachLineBackward(file, TEXT.length + 10, () => false), /shrank/);
});

Deno.test("eachTextLineSync() visits every whole line as text, first first, across read borders and UTF-8", async () => {
  const text = "é🙂a\n" + "b".repeat(50) + "\n\nγγ\n" + "torn 🙂";
  const size = new TextEncoder().encode(text).length;
  await using store = await tempStore(text);
  using file = await Deno.open(store.events);
  for (const readBytes of [1, 2, 3, 7, 64, 1 << 20]) {
    const seen: string[] = [];
    eachTextLineSync(file, size, (line) => void seen.push(line), readBytes);
    assert.deepEqual(seen, ["é🙂a", "b".repeat(50), "γγ"], `reads of ${readBytes}`);
  }
  assert.throws(() => eachTextLineSync(file, size + 5, () => {}), /shrank/);
});
