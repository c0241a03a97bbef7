/**
 * The hub for a team, end to end: `hooktap hub serve` on a KV file in a
 * temp directory, two `hooktap dev --hub` clients in two project
 * directories, the hub's CLI for clients, tokens and channels.
 */
import assert from "node:assert/strict";
import { runCli, startDev, withTmpDir, writeFile } from "./_helpers.ts";
import { until } from "./_app.ts";
import { createChannel, hubSeqs, send, startHub } from "./_hub.ts";

const CONFIG =
  `export default { port: 8787, ui: false, endpoints: [{ name: "gh", path: "/gh", method: "POST" }] };\n`;

async function project(root: string, name: string): Promise<string> {
  const dir = `${root}/${name}`;
  await Deno.mkdir(dir);
  await writeFile(dir, "hooktap.config.ts", CONFIG);
  return dir;
}

/** Writes the channel's token to `<dir>/.hooktap/hub-token` (0600), where dev reads it. */
async function tokenFile(dir: string, token: string): Promise<void> {
  await writeFile(dir, ".hooktap/hub-token", `${token}\n`);
  await Deno.chmod(`${dir}/.hooktap/hub-token`, 0o600);
}

/** A new channel on the hub at `url` with a registered client (`away`) that never acknowledges: it pins every event. */
async function pinnedChannel(root: string, url: string): Promise<{ url: string; token: string }> {
  const channel = await createChannel(root, url);
  const id = channel.url.split("/c/")[1]!;
  const r = await fetch(`${url}/api/channels/${id}?client=away&hello=1`, {
    headers: { authorization: `Bearer ${channel.token}` },
  });
  assert.equal(r.status, 200);
  await r.body?.cancel();
  return channel;
}

/** dev's options to take `channel`'s events as client `name`. */
const hubArgs = (channel: { url: string; token: string }, name: string) => [
  "--hub",
  channel.url,
  "--hub-token",
  channel.token,
  "--hub-client",
  name,
];

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

Deno.test("hub team: two clients on one channel each store every event exactly once while either comes and goes", async () => {
  await using tmp = await withTmpDir();
  await using hub = await startHub(tmp.path);
  const channel = await createChannel(tmp.path, hub.url);
  const alice = await project(tmp.path, "alice");
  const bob = await project(tmp.path, "bob");
  const args = (
    name: string,
  ) => ["--hub", channel.url, "--hub-token", channel.token, "--hub-client", name, "--quiet"];
  let sent = 0;
  const burst = async (n: number) => {
    for (let i = 0; i < n; i++) assert.equal(await send(`${channel.url}/gh`, `{"n":${++sent}}`), 200);
  };
  {
    // Both register (a client gets every event from its first connect on), then come and go.
    await using a = await startDev(alice, args("alice"));
    {
      await using b = await startDev(bob, args("bob"));
      await burst(20);
      await until(async () => (await hubSeqs(bob)).length === 20, "bob to get the first 20");
      await b.stop("SIGKILL");
    }
    await burst(20); // bob away: his events wait for him
    await until(async () => (await hubSeqs(alice)).length === 40, "alice to get all 40");
    await a.stop();
  }
  await burst(10); // both away
  await using b = await startDev(bob, args("bob"));
  await using a = await startDev(alice, args("alice"));
  await until(async () => (await hubSeqs(alice)).length === 50, "alice to catch up");
  await until(async () => (await hubSeqs(bob)).length === 50, "bob to catch up");
  assert.deepEqual(await hubSeqs(alice), range(1, 50));
  assert.deepEqual(await hubSeqs(bob), range(1, 50));

  const list = await runCli([
    "hub",
    "clients",
    "--hub",
    hub.url,
    "--channel",
    channel.url.split("/c/")[1]!,
    "--token",
    channel.token,
    "--json",
  ], {
    cwd: tmp.path,
    permissions: ["--allow-net"],
  });
  assert.equal(list.code, 0, list.stderr);
  const clients = list.stdout.trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(clients.map((c) => c.name).sort(), ["alice", "bob"]);
  await a.stop();
  await b.stop();
  assert.ok(
    !hub.stderr().includes(channel.token) && !a.stderr().includes(channel.token),
    "the token is never printed",
  );
});

Deno.test("hub team: a revoked token cuts dev off mid-stream; rotate gives a new one; channel rm deletes it all", async () => {
  await using tmp = await withTmpDir();
  await using hub = await startHub(tmp.path);
  const channel = await createChannel(tmp.path, hub.url);
  const dir = await project(tmp.path, "p");
  await using dev = await startDev(dir, hubArgs(channel, "p"));
  await send(`${channel.url}/gh`, "{}");
  await until(async () => (await hubSeqs(dir)).length === 1, "the first event");
  const revoke = await runCli(["hub", "token", "revoke", "--hub", channel.url, "--admin-token", "admin"], {
    cwd: tmp.path,
    permissions: ["--allow-net"],
  });
  assert.equal(revoke.code, 0, revoke.stderr);
  await until(
    () =>
      /Hub: the hub refused the token \(rotated or revoked\?\): restart dev with the new token/.test(
        dev.stderr(),
      ),
    "dev to say the hub refused it, and what to do (the token came from --hub-token: restart)",
  );
  assert.doesNotMatch(dev.stderr(), /retrying/);
  await send(`${channel.url}/gh`, "{}"); // still received at the hub, not given to the revoked client
  await new Promise((r) => setTimeout(r, 700));
  assert.equal((await hubSeqs(dir)).length, 1);
  const rotate = await runCli(["hub", "token", "rotate", "--hub", channel.url, "--admin-token", "admin"], {
    cwd: tmp.path,
    permissions: ["--allow-net"],
  });
  assert.equal(rotate.code, 0, rotate.stderr);
  assert.match(rotate.stdout.trim(), /^htk_/);
  await dev.stop();
  await using again = await startDev(dir, [
    "--hub",
    channel.url,
    "--hub-token",
    rotate.stdout.trim(),
    "--hub-client",
    "p",
  ]);
  await until(async () => (await hubSeqs(dir)).length === 2, "the event sent while revoked");
  await again.stop();
  const rm = await runCli([
    "hub",
    "channel",
    "rm",
    channel.url.split("/c/")[1]!,
    "--hub",
    hub.url,
    "--admin-token",
    "admin",
  ], {
    cwd: tmp.path,
    permissions: ["--allow-net"],
  });
  assert.equal(rm.code, 0, rm.stderr);
  const r = await fetch(`${channel.url}/gh`, { method: "POST", body: "{}" });
  assert.equal(r.status, 404);
  await r.body?.cancel();
});

Deno.test("hub team: retention expiry frees the hub's storage and dev reports the gap when it comes back", async () => {
  await using tmp = await withTmpDir();
  await using hub = await startHub(tmp.path, 0, ["--retention", "2s"]);
  const channel = await createChannel(tmp.path, hub.url);
  const dir = await project(tmp.path, "p");
  const args = ["--hub", channel.url, "--hub-token", channel.token, "--hub-client", "p", "--quiet"];
  {
    await using dev = await startDev(dir, args);
    await send(`${channel.url}/gh`, "{}");
    await until(async () => (await hubSeqs(dir)).length === 1, "the first event");
    await dev.stop();
  }
  for (let i = 0; i < 3; i++) await send(`${channel.url}/gh`, "{}");
  await new Promise((r) => setTimeout(r, 3500)); // away longer than the retention
  await using dev = await startDev(dir, args);
  await until(() => /3 events missed since/.test(dev.stderr()), "dev to report the gap");
  await send(`${channel.url}/gh`, "{}"); // seq 5, taken at once by the connected dev
  await until(async () => (await hubSeqs(dir)).join() === "1,5", "the next event");
  await dev.stop();
});

Deno.test("hub team: the CLI refuses bad limit flags and unknown clients with clear messages", async () => {
  await using tmp = await withTmpDir();
  const bad = await runCli(["hub", "serve", "--rate-limit", "lots"], { cwd: tmp.path, permissions: ["-A"] });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--rate-limit must be a whole number/);
  const size = await runCli(["hub", "serve", "--max-body-size", "big"], {
    cwd: tmp.path,
    permissions: ["-A"],
  });
  assert.equal(size.code, 2);
  assert.match(size.stderr, /--max-body-size must be a size/);
  await using hub = await startHub(tmp.path);
  const channel = await createChannel(tmp.path, hub.url);
  const rm = await runCli(
    ["hub", "clients", "rm", "nobody", "--hub", channel.url, "--token", channel.token],
    {
      cwd: tmp.path,
      permissions: ["--allow-net"],
    },
  );
  assert.equal(rm.code, 1);
  assert.match(rm.stderr, /No client named "nobody"/);
});

Deno.test("hub team: a full channel answers 507 and dev shows it", async () => {
  await using tmp = await withTmpDir();
  await using hub = await startHub(tmp.path, 0, ["--max-channel-bytes", "4KiB"]);
  const channel = await pinnedChannel(tmp.path, hub.url);
  const statuses: number[] = [];
  for (let i = 0; i < 5; i++) statuses.push(await send(`${channel.url}/gh`, "z".repeat(1500)));
  assert.deepEqual(statuses, [200, 200, 507, 507, 507]);
  const dir = await project(tmp.path, "p");
  await using dev = await startDev(dir, hubArgs(channel, "p"));
  await until(
    () => /storage is full: 3 requests refused with 507/.test(dev.stderr()),
    "dev to show the 507s",
  );
  await until(async () => (await hubSeqs(dir)).length === 2, "the two stored events");
  await dev.stop();
});

Deno.test("hub team: requests refused with 507 while dev's poll is held are shown within seconds, not when the poll's 25 s end", async () => {
  await using tmp = await withTmpDir();
  await using hub = await startHub(tmp.path, 0, ["--max-channel-bytes", "4KiB"]);
  const channel = await pinnedChannel(tmp.path, hub.url);
  const dir = await project(tmp.path, "p");
  await using dev = await startDev(dir, hubArgs(channel, "p"));
  await until(() => dev.stderr().includes("as p connected"), "dev to connect");
  for (let i = 0; i < 2; i++) assert.equal(await send(`${channel.url}/gh`, "z".repeat(1500)), 200);
  await until(async () => (await hubSeqs(dir)).length === 2, "the two stored events");
  await new Promise((resolve) => setTimeout(resolve, 500)); // dev's next poll is held now
  const refusedAt = Date.now();
  for (let i = 0; i < 3; i++) assert.equal(await send(`${channel.url}/gh`, "z".repeat(1500)), 507);
  await until(
    () => /storage is full: 3 requests refused with 507/.test(dev.stderr()),
    "dev to show the 507s before its held poll's wait (25 s) ends",
    12_000,
  );
  assert.ok(Date.now() - refusedAt < 12_000);
  await dev.stop();
});

Deno.test("hub team: a new or unknown client's status says what it would get (0 once the others acked all) and that it is not connected; dev's banner agrees", async () => {
  await using tmp = await withTmpDir();
  await using hub = await startHub(tmp.path);
  const channel = await createChannel(tmp.path, hub.url);
  const id = channel.url.split("/c/")[1]!;
  const alice = await project(tmp.path, "alice");
  const bob = await project(tmp.path, "bob");
  for (const dir of [alice, bob]) await tokenFile(dir, channel.token);
  const status = async (client: string) => {
    const r = await fetch(`${hub.url}/api/channels/${id}?client=${client}`, {
      headers: { authorization: `Bearer ${channel.token}` },
    });
    return await r.json();
  };
  await using a = await startDev(alice, ["--hub", channel.url, "--hub-client", "alice"]);
  await until(() => a.stderr().includes("as alice connected"), "alice to connect");
  for (let i = 0; i < 10; i++) assert.equal(await send(`${channel.url}/gh`, `{"n":${i}}`), 200);
  await until(async () => (await hubSeqs(alice)).length === 10, "alice to store the 10");
  await until(
    async () => (await status("alice")).low === 10,
    "the hub to drop what alice (its only client) acked",
  );

  const probe = await status("probe1");
  assert.equal(probe.head, 10);
  assert.equal(probe.registered, false);
  assert.equal(probe.waiting, 0, "the hub holds none of the 10 for a client that would connect now");
  assert.equal(probe.connected, false, "probe1 never polled (alice's polls are hers)");
  assert.equal((await status("alice")).connected, true);

  await using b = await startDev(bob, ["--hub", channel.url, "--hub-client", "bob"]);
  await until(() => b.stderr().includes("as bob connected"), "bob to connect");
  assert.match(b.stderr(), /as bob connected, 0 waiting/);
  assert.equal(await b.stop("SIGINT"), 0);
  assert.deepEqual(await hubSeqs(bob), []);
  await a.stop("SIGINT");
});

Deno.test("hub team: a dev stopped cleanly says bye: the hub stops holding senders for it at once (a killed one is still counted for the window)", async () => {
  await using tmp = await withTmpDir();
  // A long answer timeout makes the window after a client's last poll long (58 s): without the bye, the
  // sender below would be held for a minute.
  await using hub = await startHub(tmp.path, 0, ["--answer-timeout", "60s"]);
  const channel = await createChannel(tmp.path, hub.url);
  const id = channel.url.split("/c/")[1]!;
  const alice = await project(tmp.path, "alice");
  await tokenFile(alice, channel.token);
  const connected = async (client: string) => {
    const r = await fetch(`${hub.url}/api/channels/${id}?client=${client}`, {
      headers: { authorization: `Bearer ${channel.token}` },
    });
    return (await r.json()).connected;
  };
  {
    await using a = await startDev(alice, ["--hub", channel.url, "--hub-client", "alice"]);
    await until(() => a.stderr().includes("as alice connected"), "alice to connect");
    // Connected: a sender gets dev's answer (its plain one), not the hub's.
    const r = await fetch(`${channel.url}/gh`, { method: "POST", body: "{}" });
    assert.equal(r.status, 200);
    assert.doesNotMatch(await r.text(), /"hub":/);
    assert.equal(await a.stop("SIGINT"), 0);
  }
  assert.equal(await connected("alice"), false, "said bye: no longer connected");
  const r = await fetch(`${channel.url}/gh`, {
    method: "POST",
    body: "{}",
    signal: AbortSignal.timeout(30_000),
  });
  assert.equal(r.status, 200);
  assert.deepEqual(await r.json(), { ok: true, hub: 2 }, "the hub's own answer, not held for a gone client");
  {
    await using a = await startDev(alice, ["--hub", channel.url, "--hub-client", "alice"]);
    await until(() => a.stderr().includes("as alice connected"), "alice to connect again");
    await until(async () => (await hubSeqs(alice)).length === 2, "alice to store event 2");
    await a.stop("SIGKILL");
  }
  assert.equal(await connected("alice"), true, "killed: no bye, counted as connected for the window");
});
