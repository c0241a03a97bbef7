import assert from "node:assert/strict";
import { lastCompleteLineEnd } from "./line_end.ts";

/** `lastCompleteLineEnd` of a file holding `text`. */
async function endOf(text: string): Promise<number> {
  const path = await Deno.makeTempFile({ prefix: "hooktap_line_end_" });
  try {
    await Deno.writeTextFile(path, text);
    using file = await Deno.open(path, { read: true });
    return lastCompleteLineEnd(file, (await file.stat()).size);
  } finally {
    await Deno.remove(path);
  }
}

Deno.test("lastCompleteLineEnd: the end of the last whole line, wherever the unfinished one starts", async () => {
  assert.equal(await endOf(""), 0);
  assert.equal(await endOf('{"a":1}\n{"b":2}\n'), 16, "ends with a newline: all of it");
  assert.equal(await endOf('{"a":1}\n{"b":'), 8, "a torn last line starts after the last newline");
  assert.equal(await endOf('{"a":1}'), 0, "no newline at all");
  const long = "x".repeat(200 * 1024); // longer than one read backwards
  assert.equal(await endOf(`{"a":1}\n${long}`), 8);
  assert.equal(await endOf(`${long}\n${long}`), long.length + 1);
});
