/**
 * A hub that cannot be reached, or a URL that is no hub: what `hooktap dev --hub` and the `hub` commands
 * say (the real CLI as a subprocess in a temp directory, servers on loopback).
 */
import assert from "node:assert/strict";
import { runCli, withTmpDir, writeFile } from "./_helpers.ts";

const CONFIG =
  `export default { port: 0, ui: false, endpoints: [{ name: "gh", path: "/gh", method: "POST" }] };\n`;

/** A loopback port nothing listens on (bound, then closed). */
function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

Deno.test("hub: a hub down at dev's start, or at `hub channel create`/`hub clients`: the cause (nothing listens) and the fix, exit 1", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", CONFIG);
  const base = `http://127.0.0.1:${closedPort()}`;
  const runs = [
    ["dev", "--hub", `${base}/c/AAAAAAAAAAAAAAAAAAAAAA`],
    ["hub", "channel", "create", "--hub", base],
    ["hub", "clients", "--hub", `${base}/c/AAAAAAAAAAAAAAAAAAAAAA`],
  ];
  for (const args of runs) {
    const r = await runCli(args, {
      cwd: tmp.path,
      permissions: ["-A"],
      env: { HOOKTAP_HUB_TOKEN: "htk_x", HOOKTAP_HUB_ADMIN_TOKEN: "admin" },
      timeoutMs: 30_000,
    });
    assert.equal(r.code, 1, `${args.join(" ")}: ${r.stderr}`);
    assert.match(
      r.stderr,
      /Cannot reach the hub at http:\/\/127\.0\.0\.1:\d+: nothing listens there: connection refused\. Check the URL, and that the hub runs \(`.*hub serve`/,
      `${args.join(" ")}: ${r.stderr}`,
    );
    assert.doesNotMatch(r.stderr, /fetch failed/);
  }
});

Deno.test("hub: dev --hub at a server that answers 200 with a page, not a hub: said so (not 'cannot reach'), exit 1", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", CONFIG);
  await using page = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response("<!doctype html><p>hello", { headers: { "content-type": "text/html" } }),
  );
  const base = `http://127.0.0.1:${page.addr.port}`;
  const r = await runCli(["dev", "--hub", `${base}/c/AAAAAAAAAAAAAAAAAAAAAA`], {
    cwd: tmp.path,
    permissions: ["-A"],
    env: { HOOKTAP_HUB_TOKEN: "htk_x" },
    timeoutMs: 30_000,
  });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, new RegExp(`${base} did not answer as a hooktap hub does`), r.stderr);
});
