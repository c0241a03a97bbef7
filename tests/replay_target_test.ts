/**
 * Where `hooktap replay ID` sends an event by default, through the real CLI:
 * where `dev` forwarded it (its forward mark), so the replay counts for that
 * target in `logs` and `inspect`, and the hint `dev` prints says so.
 */
import assert from "node:assert/strict";
import { runCli, startDev, withTmpDir, writeFile } from "./_helpers.ts";
import { startApp, unusedPort } from "./_app.ts";

Deno.test("`replay ID` of an event relayed by `dev --forward-to` goes where dev relayed it, not to the config's target, and counts for it", async () => {
  await using tmp = await withTmpDir();
  await using configured = startApp(0, () => ({ status: 200, body: "configured" }));
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, ui: false, endpoints: [{ name: "gh", path: "/gh", method: "POST", ` +
      `forward: "http://127.0.0.1:${configured.port}/app" }] };\n`,
  );
  const port = unusedPort();
  const relayTo = `http://127.0.0.1:${port}/x`;
  await using dev = await startDev(tmp.path, ["--forward-to", relayTo, "--forward-mode", "relay"]);
  {
    const r = await fetch(`${dev.url}/gh`, { method: "POST", body: '{"n":1}' });
    assert.equal(r.status, 502);
    await r.arrayBuffer();
    assert.equal(await dev.stop(), 0);
  }
  const id = JSON.parse((await runCli(["logs", "--json"], { cwd: tmp.path })).stdout.trim()).id;
  // The hint names the event (it said `replay ID`, which failed when pasted), and works as printed.
  const hint = dev.stderr().match(
    /\((hooktap replay \S+) sends it again to 127\.0\.0\.1:(\d+), where it was relayed/,
  );
  assert.deepEqual([hint?.[1], Number(hint?.[2])], [`hooktap replay ${id}`, port], dev.stderr());
  await using relayed = startApp(port, () => ({ status: 200, body: "relayed" }));
  const replayed = await runCli(hint![1]!.split(" ").slice(1), { cwd: tmp.path });
  assert.equal(replayed.code, 0, replayed.stderr);
  assert.match(replayed.stderr, new RegExp(`as POST ${relayTo} \\(target 127\\.0\\.0\\.1:${port}/x\\)`));
  assert.equal(relayed.requests.length, 1, "sent where dev relayed it");
  assert.equal(configured.requests.length, 0, "not to the config's target");
  const logs = await runCli(["logs"], { cwd: tmp.path });
  assert.match(logs.stdout, /→ 200 \(1 try, 1 replay\)/);
  const shown = await runCli(["inspect", id], { cwd: tmp.path });
  assert.doesNotMatch(shown.stdout, /Sent elsewhere/);
});

Deno.test("`replay ID --target NAME` sends to that forward target of the event's endpoint and counts for it; an unknown name lists the targets", async () => {
  await using tmp = await withTmpDir();
  await using first = startApp(0, () => ({ status: 200, body: "first" }));
  await using second = startApp(0, (_req, n) => ({ status: n === 1 ? 500 : 200, body: "second" }));
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, ui: false, endpoints: [{ name: "gh", path: "/gh", method: "POST", forward: [` +
      `{ name: "first", to: "http://127.0.0.1:${first.port}/a" }, ` +
      `{ name: "second", to: "http://127.0.0.1:${second.port}/b", retry: { attempts: 1 } }] }] };\n`,
  );
  await using dev = await startDev(tmp.path);
  const r = await fetch(`${dev.url}/gh`, { method: "POST", body: '{"n":1}' });
  assert.equal(r.status, 200);
  await r.arrayBuffer();
  const deadline = Date.now() + 10_000;
  while (!/gave up/.test(dev.stdout()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.match(dev.stdout(), /gave up/);
  assert.equal(await dev.stop(), 0);
  const id = JSON.parse((await runCli(["logs", "--json"], { cwd: tmp.path })).stdout.trim()).id;
  assert.deepEqual([first.requests.length, second.requests.length], [1, 1], dev.stderr());

  // Without --target it would go to the first target, which already has it.
  const replayed = await runCli(["replay", id, "--target", "second"], { cwd: tmp.path });
  assert.equal(replayed.code, 0, replayed.stderr);
  assert.match(replayed.stderr, /\(target second\)/);
  assert.deepEqual([first.requests.length, second.requests.length], [1, 2]);
  const logs = await runCli(["logs"], { cwd: tmp.path });
  assert.match(logs.stdout, /first → 200, second → 200 \(1 try, 1 replay\)/, logs.stdout);

  const unknown = await runCli(["replay", id, "--target", "third"], { cwd: tmp.path });
  assert.equal(unknown.code, 2, unknown.stderr);
  assert.match(
    unknown.stderr,
    /Endpoint "gh" has no forward target "third": its targets are "first", "second"/,
  );
  const bulk = await runCli(["replay", "--target", "second"], { cwd: tmp.path });
  assert.equal(bulk.code, 2, bulk.stderr);
  assert.match(bulk.stderr, /Give an event id or --undelivered, or leave --target out\./);
  const both = await runCli(["replay", id, "--target", "second", "--to", "http://127.0.0.1:1/"], {
    cwd: tmp.path,
  });
  assert.equal(both.code, 2, both.stderr);
  assert.deepEqual([first.requests.length, second.requests.length], [1, 2], "nothing sent by the refusals");
});

Deno.test("`replay ID` of an event whose app answers binary bytes says binary and its size, never the bytes as text", async () => {
  await using tmp = await withTmpDir();
  const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0xfe, 0x1b]);
  const app = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response(bytes, { headers: { "content-type": "image/png" } }),
  );
  try {
    await writeFile(
      tmp.path,
      "hooktap.config.ts",
      `export default { port: 0, ui: false, endpoints: [{ name: "gh", path: "/gh", method: "POST" }] };\n`,
    );
    await using dev = await startDev(tmp.path);
    await (await fetch(`${dev.url}/gh`, { method: "POST", body: "{}" })).arrayBuffer();
    assert.equal(await dev.stop(), 0);
    const id = JSON.parse((await runCli(["logs", "--json"], { cwd: tmp.path })).stdout.trim()).id;
    const to = `http://127.0.0.1:${app.addr.port}/x`;
    const shown = await runCli(["replay", id, "--to", to], { cwd: tmp.path });
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /\(binary, 8 B: not shown\)/);
    assert.doesNotMatch(shown.stdout, /PNG|\ufffd|\\x/, "no bytes printed as text");
    const json = await runCli(["replay", id, "--to", to, "--json"], { cwd: tmp.path });
    const result = JSON.parse(json.stdout);
    assert.deepEqual([result.binary, result.bodySize, result.body], [true, 8, undefined]);
  } finally {
    await app.shutdown();
  }
});
