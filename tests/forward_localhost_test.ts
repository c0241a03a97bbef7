/**
 * A forward target named `localhost` reaches an app bound to one loopback family only: Deno connects to the
 * first address `localhost` resolves to (127.0.0.1 here), so an app bound to `::1` only (Node's
 * `listen(port, "localhost")` where `localhost` is `::1` first, as on macOS) was reported down, "nothing
 * listens", while it ran. The real CLI as a subprocess, a real app on `::1`.
 */
import assert from "node:assert/strict";
import { runCli, startDev, withTmpDir, writeFile } from "./_helpers.ts";

/** An app on `::1` only that answers 200 and counts what it got, or `undefined` without IPv6 loopback. */
function startV6App(): { port: number; got: string[] } & AsyncDisposable | undefined {
  const got: string[] = [];
  let server: Deno.HttpServer<Deno.NetAddr>;
  try {
    server = Deno.serve({ hostname: "::1", port: 0, onListen: () => {} }, async (request) => {
      got.push(await request.text());
      return new Response("ok from ::1");
    });
  } catch {
    return undefined;
  }
  return { port: server.addr.port, got, [Symbol.asyncDispose]: () => server.shutdown() };
}

Deno.test("forward to http://localhost:PORT reaches an app bound to ::1 only; replay too", async (t) => {
  await using app = startV6App();
  if (app === undefined) {
    await t.step({ name: "no IPv6 loopback on this machine", ignore: true, fn: () => {} });
    return;
  }
  await using tmp = await withTmpDir();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, ui: false, endpoints: [{ name: "a", path: "/a", method: "POST", ` +
      `forward: "http://localhost:${app.port}/hook" }] };\n`,
  );
  await using dev = await startDev(tmp.path);
  const sent = await fetch(`${dev.url}/a`, { method: "POST", body: '{"n":1}' });
  assert.equal(sent.status, 200);
  await sent.arrayBuffer();
  const deadline = Date.now() + 10_000;
  while (app.got.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(app.got, ['{"n":1}'], dev.stdout() + dev.stderr());
  assert.doesNotMatch(dev.stdout() + dev.stderr(), /nothing listens/);
  assert.equal(await dev.stop(), 0);
  const id = JSON.parse((await runCli(["logs", "--json"], { cwd: tmp.path })).stdout.trim()).id;
  const replayed = await runCli(["replay", id], { cwd: tmp.path });
  assert.equal(replayed.code, 0, replayed.stderr);
  assert.match(replayed.stdout, /ok from ::1/);
  assert.equal(app.got.length, 2);
});
