import assert from "node:assert/strict";
import { storePaths } from "../paths.ts";
import { readUnmatched } from "../read/unmatched.ts";
import { openUnmatchedLog, TRUNCATED_MARK, UNMATCHED_FIELD_MAX } from "./unmatched.ts";

Deno.test("the unmatched log appends, stays bounded in bytes by rewriting its newest lines, and reads back", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const paths = storePaths(dir);
    const log = await openUnmatchedLog(paths, { bound: 450 }); // about 5 lines
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
    // 23 lines of ~86 bytes with a bound of 450 bytes: never more than 900 bytes kept.
    assert.ok(entries.length >= 4 && entries.length <= 11, String(entries.length));
    assert.ok((await Deno.stat(paths.unmatched)).size <= 900);
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

Deno.test("the unmatched log keeps a long path and query cut to a bound, marked", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const paths = storePaths(dir);
    const log = await openUnmatchedLog(paths);
    log.add({
      time: new Date().toISOString(),
      method: "GET",
      path: "/" + "a".repeat(65_000),
      query: "q=" + "b".repeat(65_000),
      status: 404,
    });
    await log.close();
    const [entry] = await readUnmatched(paths);
    assert.equal(entry?.path, "/" + "a".repeat(UNMATCHED_FIELD_MAX - 1) + TRUNCATED_MARK);
    assert.ok(entry?.query.endsWith(TRUNCATED_MARK));
    assert.ok((await Deno.stat(paths.unmatched)).size < 3 * UNMATCHED_FIELD_MAX);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
