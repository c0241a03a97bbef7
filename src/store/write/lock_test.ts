import assert from "node:assert/strict";
import { join } from "node:path";
import { storePaths } from "../paths.ts";
import { acquireWriterLock, LockTakenError } from "./lock.ts";

const owner = { pid: 4242, port: 8787, startedAt: "2026-01-01T00:00:00.000Z" };

/** Whether another process can take the lock now (it lets it go at once). */
async function takenElsewhere(dir: string): Promise<boolean> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `import { acquireWriterLock } from "${import.meta.resolve("./lock.ts")}";
      import { storePaths } from "${import.meta.resolve("../paths.ts")}";
      try { (await acquireWriterLock(storePaths(${
        JSON.stringify(dir)
      }))).release(); console.log("ACQUIRED"); }
      catch { console.log("REFUSED"); }`,
    ],
    stdout: "piped",
    stderr: "null",
  });
  return new TextDecoder().decode((await child.output()).stdout).trim() === "ACQUIRED";
}

Deno.test("keep(): a lock whose file was deleted is taken again on a new file, with its owner, and holds", async () => {
  const dir = await Deno.makeTempDir();
  const paths = storePaths(join(dir, ".hooktap"));
  await Deno.mkdir(paths.dir);
  const lock = await acquireWriterLock(paths);
  await lock.describe(owner);
  assert.equal(await lock.keep(), false, "nothing to do while its file is there");
  await Deno.remove(paths.lock);
  assert.equal(await takenElsewhere(paths.dir), true, "a deleted lock file stops nobody");
  await Deno.remove(paths.lock);
  assert.equal(await lock.keep(), true);
  assert.deepEqual(JSON.parse(await Deno.readTextFile(paths.lock)), owner);
  assert.equal(await takenElsewhere(paths.dir), false, "held again");
  lock.release();
  assert.equal(await takenElsewhere(paths.dir), true);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("keep(): when another process took the new lock file, it throws LockTakenError naming it", async () => {
  const dir = await Deno.makeTempDir();
  const paths = storePaths(join(dir, ".hooktap"));
  await Deno.mkdir(paths.dir);
  const lock = await acquireWriterLock(paths);
  await Deno.remove(paths.lock);
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `import { acquireWriterLock } from "${import.meta.resolve("./lock.ts")}";
      import { storePaths } from "${import.meta.resolve("../paths.ts")}";
      const l = await acquireWriterLock(storePaths(${JSON.stringify(paths.dir)}));
      await l.describe({ pid: Deno.pid, port: 1234, startedAt: "x" });
      console.log("HELD");
      await new Promise((r) => setTimeout(r, 10000));`,
    ],
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  assert.equal((await reader.read()).value?.trim(), "HELD");
  const error = await lock.keep().then(() => undefined, (e) => e);
  assert.ok(error instanceof LockTakenError, String(error));
  assert.match(
    error.message,
    new RegExp(`hooktap dev \\(pid ${child.pid}, port 1234\\) started in its place`),
  );
  child.kill();
  await child.status;
  await reader.cancel();
  lock.release();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("a lock taken but not yet described names the process that holds it, not what a stopped dev left", async () => {
  const dir = await Deno.makeTempDir();
  const paths = storePaths(join(dir, ".hooktap"));
  await Deno.mkdir(paths.dir);
  // A dev that stopped long ago left its owner in the file (the file stays; only the lock goes).
  await Deno.writeTextFile(
    paths.lock,
    JSON.stringify({ pid: 999_999, port: 4321, startedAt: "then" }) + "\n",
  );
  const lock = await acquireWriterLock(paths); // taken: dev has not described itself yet (no port)
  const refused = await acquireWriterLock(paths).then(() => undefined, (e: Error) => e);
  assert.ok(refused, "a second writer was let in");
  assert.match(refused.message, new RegExp(`^hooktap dev \\(pid ${Deno.pid}, started `));
  assert.doesNotMatch(refused.message, /999999|4321/);
  lock.release();
  // What prune and rm hold is named as theirs, and killing them is not the advice.
  const pruning = await acquireWriterLock(paths, "prune");
  const second = await acquireWriterLock(paths).then(() => undefined, (e: Error) => e);
  assert.match(
    second?.message ?? "",
    new RegExp(`^hooktap prune \\(pid ${Deno.pid}, .*try again when it has finished`),
  );
  assert.doesNotMatch(second?.message ?? "", /kill/);
  pruning.release();
  await Deno.remove(dir, { recursive: true });
});
