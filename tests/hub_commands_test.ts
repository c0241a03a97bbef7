/**
 * `hooktap hub channel|clients|token` as a user runs them, the real CLI in a
 * temp directory: a hub behind a proxy under a path is reached there by every
 * command, an option an action does not take is refused (exit 2), and what a
 * hub (or something posing as one) answers is printed as text, never as
 * terminal control codes.
 * @module
 */
import assert from "node:assert/strict";
import { LEAST_PRIVILEGE, runCli, withTmpDir, writeFile } from "./_helpers.ts";
import { createChannel, startHub } from "./_hub.ts";

const NET = ["--allow-net", "--allow-env", "--allow-read"];
const ADMIN = { HOOKTAP_HUB_ADMIN_TOKEN: "admin" };

/** A loopback proxy that serves `target` under `/prefix` (as a reverse proxy mounting the hub at a path). */
function prefixProxy(target: string): Deno.HttpServer<Deno.NetAddr> {
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const url = new URL(request.url);
    if (!url.pathname.startsWith("/prefix/")) return new Response("not here\n", { status: 404 });
    const r = await fetch(`${target}${url.pathname.slice("/prefix".length)}${url.search}`, {
      method: request.method,
      headers: request.headers,
      body: request.body,
    });
    return new Response(r.body, { status: r.status, headers: r.headers });
  });
}

Deno.test("hub channel create, clients and token rotate reach a hub mounted under a path, as --public-url allows", async () => {
  await using tmp = await withTmpDir();
  await using hub = await startHub(tmp.path);
  await using proxy = prefixProxy(hub.url);
  const base = `http://127.0.0.1:${proxy.addr.port}/prefix`;
  const created = await runCli(["hub", "channel", "create", "--hub", base, "--json"], {
    cwd: tmp.path,
    permissions: NET,
    env: ADMIN,
  });
  assert.equal(created.code, 0, created.stderr);
  const { url, token } = JSON.parse(created.stdout) as { url: string; token: string };
  const id = url.split("/c/")[1]!;
  const listed = await runCli(["hub", "clients", "--hub", base, "--channel", id, "--json"], {
    cwd: tmp.path,
    permissions: NET,
    env: { HOOKTAP_HUB_TOKEN: token },
  });
  assert.equal(listed.code, 0, listed.stderr);
  const rotated = await runCli(["hub", "token", "rotate", "--hub", base, "--channel", id], {
    cwd: tmp.path,
    permissions: NET,
    env: ADMIN,
  });
  assert.equal(rotated.code, 0, rotated.stderr);
  assert.match(rotated.stdout, /^htk_/);
});

Deno.test("hub: an option an action does not take is refused with exit 2, and nothing is done", async () => {
  await using tmp = await withTmpDir();
  await using hub = await startHub(tmp.path);
  const channel = await createChannel(tmp.path, hub.url);
  const id = channel.url.split("/c/")[1]!;
  const other = "AAAAAAAAAAAAAAAAAAAAAA";
  for (
    const [args, said] of [
      [["channel", "rm", id, "--hub", hub.url, "--json"], /--json does not apply to `.*hub channel rm`/],
      [["token", "revoke", "--hub", channel.url, "--json"], /--json does not apply to `.*hub token revoke`/],
      [["clients", "rm", "bob", "--hub", channel.url, "--json"], /--json does not apply/],
      [["token", "rotate", "--hub", channel.url, "--token", "htk_x"], /--token does not apply/],
      [["channel", "rm", id, "--hub", hub.url, "--token", "htk_x"], /--token does not apply/],
      [["channel", "rm", id, "--hub", hub.url, "--channel", other], /Two channels given/],
    ] as const
  ) {
    const r = await runCli(["hub", ...args], { cwd: tmp.path, permissions: NET, env: ADMIN });
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.code} ${r.stderr}`);
    assert.match(r.stderr, said, args.join(" "));
  }
  // Nothing was done: the channel is there, its token unchanged.
  const status = await fetch(`${hub.url}/api/channels/${id}?client=a`, {
    headers: { authorization: `Bearer ${channel.token}` },
  });
  assert.equal(status.status, 200);
  await status.body?.cancel();
});

Deno.test("hub channel create prints what a hostile hub answers as text, never its control codes", async () => {
  await using tmp = await withTmpDir();
  const hostile = "\x1b]0;pwned\x07\x1b[2J\x1b[31mred";
  let answer = (): Response => new Response(hostile, { status: 403 });
  await using fake = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => answer());
  const hub = `http://127.0.0.1:${fake.addr.port}`;
  const refused = await runCli(["hub", "channel", "create", "--hub", hub], {
    cwd: tmp.path,
    permissions: NET,
    env: ADMIN,
  });
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /refused to create a channel \(403\)/);
  assert.ok(
    !refused.stderr.includes("\x1b") && !refused.stderr.includes("\x07"),
    JSON.stringify(refused.stderr),
  );
  answer = () => Response.json({ url: `${hub}/c/x\x1b[2J`, token: "htk_a\x1b[31m" }, { status: 201 });
  const created = await runCli(["hub", "channel", "create", "--hub", hub], {
    cwd: tmp.path,
    permissions: NET,
    env: ADMIN,
  });
  assert.equal(created.code, 1, created.stdout);
  assert.match(created.stderr, /not as a hooktap hub does/);
  assert.ok(!(created.stdout + created.stderr).includes("\x1b"), JSON.stringify(created));
});

Deno.test("hub clients with the admin token for a channel that does not exist says so, never 'no client has connected'", async () => {
  await using tmp = await withTmpDir();
  await using hub = await startHub(tmp.path);
  await createChannel(tmp.path, hub.url);
  const r = await runCli(["hub", "clients", "--hub", hub.url, "--channel", "AAAAAAAAAAAAAAAAAAAAAA"], {
    cwd: tmp.path,
    permissions: NET,
    env: ADMIN,
  });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /refused to list the clients \(404\): No channel here/);
  assert.doesNotMatch(r.stderr, /No client has connected/);
  // The API alike, for any channel string (a key too long for KV was a 500).
  for (const channel of ["AAAAAAAAAAAAAAAAAAAAAA", "x".repeat(3000)]) {
    const list = await fetch(`${hub.url}/api/channels/${channel}/clients`, {
      headers: { authorization: "Bearer admin" },
    });
    assert.equal(list.status, 404, `${channel.slice(0, 8)}: ${list.status}`);
    await list.body?.cancel();
  }
  assert.doesNotMatch(hub.stderr(), /error:/, hub.stderr());
});

Deno.test("dev --hub shows what a hostile hub answers at connect as text, never its control codes", async () => {
  await using tmp = await withTmpDir();
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, ui: false, endpoints: [{ name: "gh", path: "/gh", method: "POST" }] };\n`,
  );
  await using fake = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response("\x1b]0;pwned\x07\x1b[2Jdown", { status: 500 }),
  );
  const r = await runCli(["dev", "--hub", `http://127.0.0.1:${fake.addr.port}/c/AAAAAAAAAAAAAAAAAAAAAA`], {
    cwd: tmp.path,
    permissions: [...LEAST_PRIVILEGE, "--allow-env"],
    env: { HOOKTAP_HUB_TOKEN: "htk_x" },
  });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /The hub answered 500: .*down/);
  assert.ok(!r.stderr.includes("\x1b") && !r.stderr.includes("\x07"), JSON.stringify(r.stderr));
});

Deno.test("hub clients rm with a name that is no client name ('..', '.', 'a b') is refused with exit 2 before any request, never sent as a path that resolves elsewhere", async () => {
  await using tmp = await withTmpDir();
  await using hub = await startHub(tmp.path);
  const channel = await createChannel(tmp.path, hub.url);
  for (const name of ["..", ".", "a b", "../clients"]) {
    const r = await runCli(["hub", "clients", "rm", name, "--hub", channel.url], {
      cwd: tmp.path,
      permissions: NET,
      env: ADMIN,
    });
    assert.equal(r.code, 2, `${name}: ${r.stderr}`);
    assert.match(r.stderr, /is not a client name .*hub clients` lists the channel's clients/, r.stderr);
    assert.doesNotMatch(r.stderr, /No channel here/);
  }
  const list = await runCli(["hub", "clients", "--hub", channel.url], {
    cwd: tmp.path,
    permissions: NET,
    env: ADMIN,
  });
  assert.equal(list.code, 0, list.stderr);
});
