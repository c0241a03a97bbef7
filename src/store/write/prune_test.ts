import assert from "node:assert/strict";
import { join } from "node:path";
import { storePaths } from "../paths.ts";
import { acquireWriterLock } from "./lock.ts";
import { compactStore } from "./prune.ts";

Deno.test("compactStore() while another prune holds the lock names that prune, not an unreachable dev", async () => {
  const dir = await Deno.makeTempDir();
  const paths = storePaths(join(dir, ".hooktap"));
  await Deno.mkdir(paths.dir);
  await Deno.writeTextFile(paths.events, "");
  for (const command of ["prune", "rm"]) {
    const other = await acquireWriterLock(paths, command);
    try {
      const refused = await compactStore(paths, { keep: 1 }, { connectTimeoutMs: 200 }).then(
        () => undefined,
        (e: Error) => e,
      );
      assert.ok(refused, "the compaction ran beside the other writer");
      assert.match(
        refused.message,
        new RegExp(`^hooktap ${command} \\(pid ${Deno.pid}, .*try again when it has`),
      );
      assert.doesNotMatch(refused.message, /hooktap dev|control socket/);
    } finally {
      other.release();
    }
  }
  await Deno.remove(dir, { recursive: true });
});
