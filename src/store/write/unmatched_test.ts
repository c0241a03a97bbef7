import assert from "node:assert/strict";
import { storePaths } from "../paths.ts";
import { readUnmatched } from "../read/unmatched.ts";
import { openUnmatchedLog } from "./unmatched.ts";

Deno.test("the unmatched log appends, stays bounded by rewriting its newest lines, and reads back", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const paths = storePaths(dir);
    const log = await openUnmatchedLog(paths, { bound: 5 });
    for (let i = 0; i < 23; i++) {
      log.add({
        time: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
        method: "POST",
        path: `/p${i}`,
        query: "",
        status: 404,
      });
    }
    await log.close();
    const entries = await readUnmatched(paths);
    // 23 lines with a bound of 5: rewritten to 5 at line 11, and at line 16+... never more than 10 kept.
    assert.ok(entries.length >= 5 && entries.length <= 10, String(entries.length));
    assert.equal(entries.at(-1)?.path, "/p22");
    assert.deepEqual(
      entries.map((e) => e.path),
      Array.from({ length: entries.length }, (_, i) => `/p${23 - entries.length + i}`),
    );
    const since = await readUnmatched(paths, { since: new Date(Date.UTC(2026, 0, 1, 0, 0, 21)) });
    assert.deepEqual(since.map((e) => e.path), ["/p21", "/p22"]);
    assert.deepEqual(await readUnmatched(storePaths(`${dir}/none`)), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
