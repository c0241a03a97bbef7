/**
 * Found on a Node developer's day: a forward target's memory window is full by its bytes (one event of more
 * than 8 MiB, in flight or waiting for its retry) and the next event is left in the store to be read back.
 * The read-back stopped at that event (no room), then read again at once, and again, each time without
 * waiting for any I/O: `dev`'s main thread spun and it answered nothing more (senders got no answer, Ctrl-C
 * did nothing) until it was killed. Through the real CLI: `dev` must keep receiving, and both events reach
 * the app once, in order, when the retry comes.
 * @module
 */
import assert from "node:assert/strict";
import { freePort, until } from "../_app.ts";
import { startDev, withTmpDir, writeFile } from "../_helpers.ts";

const MB = 1024 * 1024;

Deno.test("an event larger than the forward window waits for its retry: dev keeps receiving, none is lost", async () => {
  await using tmp = await withTmpDir();
  const appPort = freePort();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, ui: false, endpoints: [{ name: "gh", path: "/gh", method: "POST", forward: ` +
      `{ to: "http://127.0.0.1:${appPort}/hook", retry: { attempts: 3, backoff: [1000] } } }] };\n`,
  );
  await using dev = await startDev(tmp.path, ["--quiet"]);
  const got: string[] = [];
  await using _app = Deno.serve({ hostname: "127.0.0.1", port: appPort, onListen() {} }, async (req) => {
    const n = req.headers.get("x-n")!;
    await req.arrayBuffer();
    got.push(n);
    // The first attempt fails: the big event waits for its retry, a second away, filling the window.
    return new Response(null, { status: got.length === 1 ? 500 : 204 });
  });
  const send = async (n: string, body: string) => {
    const r = await fetch(`${dev.url}/gh`, {
      method: "POST",
      headers: { "x-n": n },
      body,
      signal: AbortSignal.timeout(20_000),
    });
    await r.body?.cancel();
    return r.status;
  };
  assert.equal(await send("big", "x".repeat(9 * MB)), 200);
  await until(() => got.length >= 1, "the app's first answer (500)", 20_000);
  // While the big one waits for its retry, more events arrive: each must be answered.
  for (const n of ["small-1", "small-2"]) {
    assert.equal(await send(n, `{"n":"${n}"}`), 200, `${n} answered (dev stderr:\n${dev.stderr()})`);
  }
  await until(() => got.length >= 4, "the retry and both small events delivered", 30_000);
  assert.deepEqual(got, ["big", "big", "small-1", "small-2"]);
});
