import assert from "node:assert/strict";
import { layoutRows } from "./table.ts";
import { clipTo, displayWidth } from "./width.ts";

const COLUMNS = [
  { priority: 9 }, // id
  { priority: 5, min: 6 }, // path
  { priority: 1, min: 8 }, // type
  { priority: 3, align: "right" as const }, // size
];
const ROWS = [["evt_1", "/a/very/long/path/indeed", "application/json", "1.6 KiB"], [
  "evt_2",
  "/b",
  "text/plain",
  "9 B",
]];

Deno.test("layoutRows() shows every column whole without a width (a pipe)", () => {
  const lines = layoutRows(COLUMNS, ROWS, undefined);
  assert.equal(lines[0], "evt_1  /a/very/long/path/indeed  application/json  1.6 KiB");
  assert.equal(lines[1], "evt_2  /b                        text/plain            9 B");
});

Deno.test("layoutRows() shrinks flexible columns, then drops the least important, and never wraps", () => {
  for (const width of [80, 50, 40, 30, 20, 12]) {
    const lines = layoutRows(COLUMNS, ROWS, width);
    for (const line of lines) assert.ok(displayWidth(line) <= width, `${width}: ${JSON.stringify(line)}`);
    for (const line of lines) assert.match(line, /^evt_\d/, "the most important column stays");
  }
  assert.equal(layoutRows(COLUMNS, ROWS, 50)[0], "evt_1  /a/very/long/path/indeed  applica…  1.6 KiB");
  assert.equal(layoutRows(COLUMNS, ROWS, 40)[0], "evt_1  /a/very/long/…  applica…  1.6 KiB");
  assert.equal(layoutRows(COLUMNS, ROWS, 30)[0], "evt_1  /a/very/long/…  1.6 KiB");
  assert.equal(layoutRows(COLUMNS, ROWS, 20)[0], "evt_1  /a/very/long…");
  assert.equal(layoutRows(COLUMNS, ROWS, 13)[0], "evt_1  /a/ve…");
  assert.equal(layoutRows(COLUMNS, ROWS, 12)[0], "evt_1");
});

Deno.test("displayWidth() counts wide characters as two columns and clipTo() respects it", () => {
  assert.equal(displayWidth("café"), 4);
  assert.equal(displayWidth("日本"), 4);
  assert.equal(clipTo("日本語のパス", 7), "日本語…");
  assert.equal(clipTo("short", 10), "short");
});
