/**
 * Meta's verification of a callback URL (WhatsApp, Instagram, Messenger): a GET with `hub.mode=subscribe`,
 * `hub.verify_token` and `hub.challenge`, answered with the challenge as the whole body. `hooktap trigger
 * meta subscribe` sends it (unsigned, as Meta does, with the endpoint's `verifyToken`) and judges the answer
 * by whether it is exactly the challenge. The CLI as a subprocess, `dev` and a loopback app.
 * @module
 */
import assert from "node:assert/strict";
import { runCli, startDev, withTmpDir, writeFile } from "../_helpers.ts";

const config = (verifyToken: string | undefined) =>
  `export default { port: 0, ui: false, endpoints: [\n` +
  `  { name: "meta", path: "/meta", method: ["GET", "POST"], provider: "meta", secret: "app-secret"` +
  (verifyToken === undefined ? "" : `, verifyToken: "${verifyToken}"`) + ` },\n] };\n`;

/** An app that checks the verify token as Meta's docs say, and answers `how` (the challenge, or JSON). */
function startApp(how: "challenge" | "json") {
  const seen: URL[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    const url = new URL(req.url);
    seen.push(url);
    const p = url.searchParams;
    if (p.get("hub.mode") !== "subscribe" || p.get("hub.verify_token") !== "tok-1") {
      return new Response("Forbidden", { status: 403 });
    }
    const challenge = p.get("hub.challenge") ?? "";
    return how === "challenge" ? new Response(challenge) : Response.json({ "hub.challenge": challenge });
  });
  return { server, seen, url: `http://127.0.0.1:${server.addr.port}/meta` };
}

Deno.test("trigger meta subscribe into dev: a GET with the endpoint's verify token, unsigned, ✓ on dev's challenge", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", config("tok-1"));
  await using dev = await startDev(tmp.path);
  const r = await runCli(["trigger", "meta", "subscribe"], { cwd: tmp.path });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(
    r.stdout,
    /→ meta subscribe {2}GET http:\/\/127\.0\.0\.1:\d+\/meta\?hub\.mode=subscribe&hub\.challenge=\d{10}&hub\.verify_token=tok-1 {2}0 B, unsigned\n {2}✓ 200/,
  );
  const listed = await runCli(["trigger", "meta", "--list"], { cwd: tmp.path });
  assert.match(listed.stdout, /subscribe/);
  await dev.stop();
  assert.match(dev.stdout(), /GET +\/meta\?hub\.mode=subscribe.* 200 .*meta subscribe.*\[challenge\]/);
});

Deno.test("trigger meta subscribe into dev without the endpoint's verifyToken: ✗ with dev's 403 and why", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", config(undefined));
  await using dev = await startDev(tmp.path);
  const r = await runCli(["trigger", "meta", "subscribe"], { cwd: tmp.path });
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stdout, /✗ 403 .*\n.*hub\.verify_token cannot be checked: set verifyToken on this endpoint/);
  await dev.stop();
});

Deno.test("trigger meta subscribe --to an app: ✓ for the challenge as the body, ✗ for anything else", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", config("tok-1"));
  const right = startApp("challenge");
  const wrong = startApp("json");
  try {
    const ok = await runCli(["trigger", "meta", "subscribe", "--to", right.url], { cwd: tmp.path });
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);
    assert.match(ok.stdout, /✓ 200/);
    assert.equal(right.seen.length, 1);
    assert.equal(right.seen[0]!.searchParams.get("hub.verify_token"), "tok-1");
    const bad = await runCli(["trigger", "meta", "subscribe", "--to", wrong.url], { cwd: tmp.path });
    assert.equal(bad.code, 1, bad.stdout + bad.stderr);
    assert.match(
      bad.stdout,
      /✗ 200 in \d+ ms \(but Meta's verification needs hub\.challenge back as the whole body; the answer is not that, so Meta would not verify the callback URL\)/,
    );
  } finally {
    await right.server.shutdown();
    await wrong.server.shutdown();
  }
});

Deno.test("trigger meta subscribe warns of a missing verify token, never of a missing secret (it is sent unsigned)", async () => {
  await using tmp = await withTmpDir(); // no config: no endpoint lends a verifyToken or a secret
  const app = startApp("challenge");
  try {
    const r = await runCli(["trigger", "meta", "subscribe", "--to", app.url], { cwd: tmp.path });
    assert.equal(r.code, 1, r.stdout + r.stderr); // the app refuses the empty token: 403
    assert.doesNotMatch(r.stderr, /sending unsigned|--secret/);
    assert.match(r.stderr, /warning: sending an empty verify token: .*set `verifyToken` on the endpoint/);
    await writeFile(tmp.path, "hooktap.config.ts", config("tok-1"));
    const ok = await runCli(["trigger", "meta", "subscribe", "--to", app.url], { cwd: tmp.path });
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);
    assert.doesNotMatch(ok.stderr, /warning/);
  } finally {
    await app.server.shutdown();
  }
});
