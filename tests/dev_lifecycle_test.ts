/**
 * `hooktap dev`'s lifecycle, run in this process (the real command tree, real sockets and files) so the
 * test can see what a failed start leaves behind: a failure at any step releases the writer lock and
 * closes every part already started (deno test's resource and op sanitizers fail the test on a socket or
 * file left open), and Ctrl-C stops everything once.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { PROGRAM } from "../src/cli.ts";
import { runProgram } from "../src/cli/run.ts";
import type { CommandContext } from "../src/cli/context.ts";
import { HooktapError, ServeError, StoreError } from "../src/errors.ts";
import { storePaths } from "../src/store/paths.ts";
import { acquireWriterLock } from "../src/store/write/lock.ts";
import { createColors } from "../src/term/colors.ts";
import { withTmpDir, writeFile } from "./_helpers.ts";

/** A context printing into strings, with its own Ctrl-C. */
function context(cwd: string): CommandContext & { stderr(): string; interrupt(): void } {
  let err = "";
  const controller = new AbortController();
  const colors = createColors(false);
  return {
    output: {
      out: () => {},
      outBytes: () => {},
      err: (text) => void (err += text),
      stdoutIsTerminal: false,
      columns: () => undefined,
      colors,
      errColors: colors,
    },
    cwd,
    exit: () => {},
    signal: controller.signal,
    commands: () => Promise.resolve(PROGRAM.commands),
    stderr: () => err,
    interrupt: () => controller.abort(),
  };
}

/** A loopback port nothing listens on (bound, then closed). */
function closedPort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** The lock of `dir`'s store is free: taking it succeeds (then it is released again). */
async function lockIsFree(dir: string): Promise<void> {
  const lock = await acquireWriterLock(storePaths(join(dir, ".hooktap")));
  lock.release();
}

const CONFIG = (port: number) =>
  `export default { port: ${port}, endpoints: [{ name: "default", path: "/webhook", method: "POST" }] };\n`;

Deno.test("dev: a port that cannot be bound, after the writer lock is taken, releases the lock and closes the store", async () => {
  await using tmp = await withTmpDir();
  using taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (taken.addr as Deno.NetAddr).port;
  await writeFile(tmp.path, "hooktap.config.ts", CONFIG(port));
  const ctx = context(tmp.path);
  await assert.rejects(() => runProgram(PROGRAM, ctx, ["dev", "--no-ui"]), ServeError);
  // The store was opened before the bind (the log exists), and is no longer locked.
  await Deno.stat(join(tmp.path, ".hooktap", "events.jsonl"));
  await lockIsFree(tmp.path);
});

Deno.test("dev: an explicit --ui-port that is taken stops the receiver and releases the lock", async () => {
  await using tmp = await withTmpDir();
  using taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const uiPort = (taken.addr as Deno.NetAddr).port;
  const port = closedPort();
  await writeFile(tmp.path, "hooktap.config.ts", CONFIG(port));
  const ctx = context(tmp.path);
  await assert.rejects(() => runProgram(PROGRAM, ctx, ["dev", "--ui-port", String(uiPort)]), ServeError);
  await lockIsFree(tmp.path);
  // The receiver's port is free again.
  Deno.listen({ hostname: "127.0.0.1", port }).close();
});

Deno.test("dev: a hub that cannot be reached stops the receiver and releases the lock", async () => {
  await using tmp = await withTmpDir();
  const port = closedPort();
  await writeFile(tmp.path, "hooktap.config.ts", CONFIG(port));
  const ctx = context(tmp.path);
  const hub = `http://127.0.0.1:${closedPort()}/c/${"A".repeat(22)}`;
  const error = await runProgram(PROGRAM, ctx, ["dev", "--no-ui", "--hub", hub, "--hub-token", "htk_x"]).then(
    () => undefined,
    (e) => e,
  );
  assert.ok(error instanceof HooktapError, String(error));
  assert.match(error.message, /Cannot reach the hub/);
  await lockIsFree(tmp.path);
  Deno.listen({ hostname: "127.0.0.1", port }).close();
});

Deno.test({
  name: "dev: Ctrl-C (twice) stops every part once, prints the summary, and releases the lock",
  // The tunnel probe's fetch may still be on its way when dev stops (it is ignored then).
  sanitizeOps: false,
  async fn() {
    await using tmp = await withTmpDir();
    await writeFile(tmp.path, "hooktap.config.ts", CONFIG(0));
    const ctx = context(tmp.path);
    const running = runProgram(PROGRAM, ctx, ["dev", "--no-ui", "--quiet"]);
    const deadline = Date.now() + 10_000;
    let url: string | undefined;
    while (url === undefined && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      url = /http:\/\/localhost:\d+\/webhook/.exec(ctx.stderr())?.[0];
    }
    assert.ok(url, `no banner:\n${ctx.stderr()}`);
    // While dev runs, the lock is held: the check below is a real one.
    await assert.rejects(() => lockIsFree(tmp.path), StoreError);
    const res = await fetch(url, { method: "POST", body: "{}" });
    await res.body?.cancel();
    assert.equal(res.status, 200);
    ctx.interrupt();
    ctx.interrupt();
    await running;
    assert.match(ctx.stderr(), /Stopped\. 1 event captured this session/);
    assert.equal(ctx.stderr().match(/Stopped\./g)?.length, 1);
    await lockIsFree(tmp.path);
  },
});
