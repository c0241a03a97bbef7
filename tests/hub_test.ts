/**
 * The hub end to end: `hooktap hub serve` on a KV file in a temp directory,
 * channels through the CLI, `hooktap dev --hub` as a subprocess; senders
 * and the app on loopback.
 */
import assert from "node:assert/strict";
import { sign, verify } from "@octokit/webhooks-methods";
import { createHmac } from "node:crypto";
import Stripe from "stripe";
import { cliArgs, readEvents, runCli, startDev, withTmpDir, writeFile } from "./_helpers.ts";
import { startApp, until } from "./_app.ts";
import type { CapturedEvent } from "../src/event/record.ts";
import { createChannel, hubSeqs, send, startHub } from "./_hub.ts";
import { caAndLeaf } from "./_tls.ts";
import type { WirePoll } from "../src/hub/wire.ts";

const CONFIG = `export default {
  port: 8787,
  ui: false,
  endpoints: [
    { name: "gh", path: "/gh", method: "POST" },
    { name: "slack", path: "/slack", method: "POST", provider: "slack", secret: "slack-signing-secret" },
    { name: "zoom", path: "/zoom", method: "POST", provider: "zoom", secret: "zoom-secret-token" },
  ],
};
`;

Deno.test("hub: events sent while no client is connected arrive once it connects, byte-exact; a signed GitHub delivery verifies at the app", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", CONFIG);
  await using hub = await startHub(tmp.path);
  const channel = await createChannel(tmp.path, hub.url);
  const secret = "gh-app-secret";
  // A non-canonical JSON body: spacing and key order a re-encoding relay would change.
  const body = '{ "zen":"Keep it logically awesome.",  "hook_id":1,"a":[1,2 ,3] }';
  const signature = await sign(secret, body);
  assert.equal(
    await send(`${channel.url}/gh?x=1&x=2`, body, {
      "X-GitHub-Event": "ping",
      "X-Hub-Signature-256": signature,
      "X-Custom": "one",
    }),
    200,
  );
  const binary = new Uint8Array([0xff, 0xfe, 0, 1, 2, 0x80]);
  assert.equal(await send(`${channel.url}/gh`, binary, { "content-type": "application/octet-stream" }), 200);
  assert.equal(await send(`${channel.url}/nowhere`, "x"), 200); // stored at the hub; unmatched at dev

  await using app = startApp(0, () => ({ status: 204 }));
  await using dev = await startDev(tmp.path, [
    "--hub",
    channel.url,
    "--hub-token",
    channel.token,
    "--forward-to",
    `http://127.0.0.1:${app.port}/hook`,
  ]);
  await until(() => app.requests.length >= 2, "the app to get both events");
  const events = await readEvents(tmp.path);
  assert.equal(events.length, 2);
  const [first, second] = events as unknown as CapturedEvent[];
  assert.equal(first!.v, 2);
  assert.equal(first!.body, body);
  assert.equal(first!.query, "x=1&x=2");
  assert.equal(first!.hub?.seq, 1);
  assert.equal(second!.hub?.seq, 2);
  assert.equal(second!.bodyEncoding, "base64");
  assert.deepEqual(Uint8Array.fromBase64(second!.body), binary);
  assert.ok(first!.headers.some(([k, v]) => k.toLowerCase() === "x-custom" && v === "one"));
  // Forwarding runs 8 deliveries at once: the signed one is not always the first to reach the app.
  const delivered = app.requests.find((r) =>
    r.headers.some(([k]) => k.toLowerCase() === "x-hub-signature-256")
  )!;
  const sig = delivered.headers.find(([k]) => k.toLowerCase() === "x-hub-signature-256")?.[1];
  assert.equal(new TextDecoder().decode(delivered.body), body);
  assert.ok(await verify(secret, new TextDecoder().decode(delivered.body), sig!));
  await until(async () => {
    try {
      return (await Deno.readTextFile(`${tmp.path}/.hooktap/unmatched.jsonl`)).includes("/nowhere");
    } catch {
      return false;
    }
  }, "the unmatched request to be logged");
  const state = JSON.parse(await Deno.readTextFile(`${tmp.path}/.hooktap/hub.json`));
  assert.equal(state.seq, 3);
  assert.ok(!JSON.stringify(state).includes(channel.token), "the token is never written to hub.json");
  assert.match(dev.stderr(), /Hub: .*connected/);
  assert.doesNotMatch(dev.stderr(), /Tunnel:/, "a hub replaces the tunnel: the banner does not ask for one");
  // The read side takes v2 lines: logs lists both.
  const logs = await runCli(["logs", "--json"], { cwd: tmp.path });
  assert.equal(logs.stdout.trim().split("\n").length, 2);
  const doctor = await runCli(["doctor", "--json"], { cwd: tmp.path });
  const hubCheck = JSON.parse(doctor.stdout).checks.find((c: { id: string }) => c.id === "hub");
  assert.equal(hubCheck.status, "ok");
  assert.match(hubCheck.summary, /Connected to .*0 waiting at the hub, last received/);
  // A hub replaces the tunnel: doctor does not ask for one while dev receives through it.
  const tunnel = JSON.parse(doctor.stdout).checks.find((c: { id: string }) => c.id === "tunnel");
  assert.equal(tunnel.status, "ok", tunnel.summary);
  assert.match(tunnel.summary, /No tunnel needed: dev receives through its hub/);
  // The request to /nowhere came through the hub: the fix names the channel URL, not a tunnel's.
  const senders = JSON.parse(doctor.stdout).checks.find((c: { id: string }) => c.id === "senders");
  assert.ok(senders.fix.includes(`use ${channel.url} followed by one of: /gh`), senders.fix);
  assert.doesNotMatch(senders.fix, /tunnel URL/);
  await dev.stop();
  const after = await runCli(["doctor", "--json"], { cwd: tmp.path });
  const stopped = JSON.parse(after.stdout).checks.find((c: { id: string }) => c.id === "hub");
  assert.equal(stopped.status, "warn");
  assert.match(stopped.fix, /events wait at the hub/);
  // Away from the hub, the count is the last one dev heard, and said so.
  assert.match(stopped.summary, /0 waiting at the hub when dev last heard from it \(\d+ s ago\)/);
});

Deno.test("hub: a signed event that waited at the hub longer than its tolerance is judged by when the hub received it", async () => {
  await using tmp = await withTmpDir();
  const secret = "whsec_hub_wait";
  await writeFile(
    tmp.path,
    "hooktap.config.ts",
    `export default { port: 0, ui: false, endpoints: [{ name: "stripe", path: "/stripe", method: "POST", ` +
      `provider: "stripe", secret: "${secret}", tolerance: 2 }] };\n`,
  );
  await using hub = await startHub(tmp.path);
  const channel = await createChannel(tmp.path, hub.url);
  // Signed by Stripe's own library as it sends, while no dev is connected; dev fetches it 3 s later.
  const payload = '{"id":"evt_hub_wait","object":"event","type":"payment_intent.succeeded"}';
  const header = await new Stripe("sk_test_unused").webhooks.generateTestHeaderStringAsync({
    payload,
    secret,
  });
  assert.equal(await send(`${channel.url}/stripe`, payload, { "Stripe-Signature": header }), 200);
  await new Promise((r) => setTimeout(r, 3000));
  await using dev = await startDev(tmp.path, ["--hub", channel.url, "--hub-token", channel.token]);
  await until(async () => (await readEvents(tmp.path)).length === 1, "the event fetched from the hub");
  const [event] = await readEvents(tmp.path) as unknown as CapturedEvent[];
  assert.ok(Date.parse(event!.receivedAt) - Date.parse(event!.hub!.receivedAt) >= 3000, "it waited 3 s");
  assert.equal(event!.verdict?.status, "valid", JSON.stringify(event!.verdict));
  assert.doesNotMatch(dev.stdout(), /expired/);
  // inspect says when the hub received it, beside when dev did.
  const shown = await runCli(["inspect", event!.id], { cwd: tmp.path });
  assert.match(shown.stdout, new RegExp(`via hub +.*\\(${event!.hub!.receivedAt}\\), channel \\S+ event 1`));
});

Deno.test("hub: dev killed with SIGKILL mid-stream and restarted stores every event exactly once, in order", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", CONFIG);
  await using hub = await startHub(tmp.path);
  const channel = await createChannel(tmp.path, hub.url);
  // 40 KiB bodies (stored in chunks at the hub): a poll carries at most 8 MiB, so the 600 come in batches
  // and the kill lands while later ones are still to come.
  const N = 600;
  const pad = "x".repeat(40 * 1024);
  for (let i = 0; i < N; i += 50) {
    await Promise.all(
      Array.from({ length: 50 }, (_, j) => send(`${channel.url}/gh`, `{"n":${i + j},"pad":"${pad}"}`)),
    );
  }
  const args = ["--hub", channel.url, "--hub-token", channel.token, "--quiet"];
  {
    const dev = await startDev(tmp.path, args);
    await until(async () => {
      try {
        return (await Deno.stat(`${tmp.path}/.hooktap/events.jsonl`)).size > 0;
      } catch {
        return false;
      }
    }, "the first events");
    await dev.stop("SIGKILL");
  }
  const before = (await hubSeqs(tmp.path)).length;
  assert.ok(before < N, `killed mid-stream (${before} of ${N} stored)`);
  // More events while dev is dead.
  for (let i = 0; i < 20; i++) assert.equal(await send(`${channel.url}/gh`, `{"late":${i}}`), 200);
  await using dev = await startDev(tmp.path, args);
  await until(async () => (await hubSeqs(tmp.path)).length >= N + 20, "every event", 60_000);
  const seqs = await hubSeqs(tmp.path);
  assert.deepEqual(seqs, Array.from({ length: N + 20 }, (_, i) => i + 1));
  await dev.stop();
});

Deno.test("hub: a restarted hub loses nothing; 10 concurrent senders skip nothing", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", CONFIG);
  let hub = await startHub(tmp.path);
  const port = hub.port;
  const channel = await createChannel(tmp.path, hub.url);
  for (let i = 0; i < 10; i++) assert.equal(await send(`${channel.url}/gh`, `before ${i}`), 200);
  await hub.stop("SIGKILL");
  hub = await startHub(tmp.path, port);
  try {
    await using dev = await startDev(tmp.path, [
      "--hub",
      channel.url,
      "--hub-token",
      channel.token,
      "--quiet",
    ]);
    const statuses = await Promise.all(
      Array.from({ length: 10 }, async (_, s) => {
        const out: number[] = [];
        for (let i = 0; i < 20; i++) out.push(await send(`${channel.url}/gh`, `sender ${s} #${i}`));
        return out;
      }),
    );
    assert.ok(statuses.flat().every((s) => s === 200));
    await until(async () => (await hubSeqs(tmp.path)).length >= 210, "every event");
    const events = await readEvents(tmp.path);
    assert.deepEqual(
      (events as unknown as CapturedEvent[]).map((e) => e.hub?.seq),
      Array.from({ length: 210 }, (_, i) => i + 1),
    );
    assert.deepEqual(
      events.slice(0, 10).map((e) => e.body),
      Array.from({ length: 10 }, (_, i) => `before ${i}`),
    );
    assert.equal(new Set(events.map((e) => e.body)).size, 210);
    await dev.stop();
  } finally {
    await hub.stop();
  }
});

Deno.test("hub: a wrong token is refused at connect with a clear error and a non-zero exit", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", CONFIG);
  await using hub = await startHub(tmp.path);
  const channel = await createChannel(tmp.path, hub.url);
  const r = await runCli(["dev", "--port", "0", "--hub", channel.url, "--hub-token", "htk_wrong"], {
    cwd: tmp.path,
  });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /refused the token/);
  const missing = await runCli(["dev", "--port", "0", "--hub", channel.url], { cwd: tmp.path });
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /needs its token/);
});

Deno.test("hub: Slack's and Zoom's URL challenges get dev's answer through a connected client", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", CONFIG);
  // The answer comes from dev through its poll: on a machine loaded by the whole suite that can take more
  // than the default 5 s, after which the sender would get the hub's own 200.
  await using hub = await startHub(tmp.path, 0, ["--answer-timeout", "60s"]);
  const channel = await createChannel(tmp.path, hub.url);
  await using dev = await startDev(tmp.path, ["--hub", channel.url, "--hub-token", channel.token]);
  await until(() => dev.stderr().includes("connected"), "the client to connect");
  // Slack's documented url_verification request.
  const slack = await fetch(`${channel.url}/slack`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      token: "Jhj5dZrVaK7ZwHHjRyZWjbDl",
      challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P",
      type: "url_verification",
    }),
  });
  assert.equal(slack.status, 200);
  assert.deepEqual(await slack.json(), { challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" });
  // Zoom's documented endpoint.url_validation.
  const zoom = await fetch(`${channel.url}/zoom`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      payload: { plainToken: "qgg8vlvZRS6UYooatFL8Aw" },
      event: "endpoint.url_validation",
    }),
  });
  assert.deepEqual(await zoom.json(), {
    plainToken: "qgg8vlvZRS6UYooatFL8Aw",
    encryptedToken: createHmac("sha256", "zoom-secret-token").update("qgg8vlvZRS6UYooatFL8Aw").digest("hex"),
  });
  await until(async () => (await hubSeqs(tmp.path)).length >= 2, "both challenges stored");
  await dev.stop();
});

Deno.test("hub: an unknown channel and a wrong id get the same 404; an oversize body 413", async () => {
  await using tmp = await withTmpDir();
  await using hub = await startHub(tmp.path);
  const channel = await createChannel(tmp.path, hub.url);
  const a = await fetch(`${hub.url}/c/AAAAAAAAAAAAAAAAAAAAAA/gh`, { method: "POST", body: "x" });
  const b = await fetch(`${hub.url}/c/short/gh`, { method: "POST", body: "x" });
  assert.deepEqual([a.status, await a.text()], [b.status, await b.text()]);
  assert.equal(a.status, 404);
  assert.equal(await send(`${channel.url}/gh`, new Uint8Array(10 * 1024 * 1024 + 1)), 413);
});

Deno.test("hub: 10,000 events sent in a burst all arrive at a connected client, in commit order", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", CONFIG);
  await using hub = await startHub(tmp.path);
  const channel = await createChannel(tmp.path, hub.url);
  await using dev = await startDev(tmp.path, ["--hub", channel.url, "--hub-token", channel.token, "--quiet"]);
  const N = 10_000;
  let next = 0;
  await Promise.all(Array.from({ length: 32 }, async () => {
    while (next < N) {
      const n = next++;
      assert.equal(await send(`${channel.url}/gh`, `{"n":${n}}`), 200);
    }
  }));
  await until(async () => (await hubSeqs(tmp.path)).length >= N, "10,000 events", 120_000);
  const events = (await readEvents(tmp.path)) as unknown as CapturedEvent[];
  assert.deepEqual(events.map((e) => e.hub?.seq), Array.from({ length: N }, (_, i) => i + 1));
  assert.equal(new Set(events.map((e) => e.body)).size, N);
  await dev.stop();
});

Deno.test("hub: killed after storing but before saving its cursor, dev skips what its log already holds", async () => {
  await using tmp = await withTmpDir();
  await writeFile(tmp.path, "hooktap.config.ts", CONFIG);
  await using hub = await startHub(tmp.path);
  const channel = await createChannel(tmp.path, hub.url);
  for (let i = 1; i <= 5; i++) assert.equal(await send(`${channel.url}/gh`, `{"n":${i}}`), 200);
  const args = ["--hub", channel.url, "--hub-token", channel.token, "--quiet"];
  {
    await using dev = await startDev(tmp.path, args);
    await until(async () => (await hubSeqs(tmp.path)).length >= 5, "5 events");
    await until(
      async () => JSON.parse(await Deno.readTextFile(`${tmp.path}/.hooktap/hub.json`)).seq === 5,
      "cursor",
    );
    await dev.stop();
  }
  // The state a SIGKILL between the fdatasync and the cursor's write leaves: events 3-5 stored, cursor at 2.
  const file = `${tmp.path}/.hooktap/hub.json`;
  await Deno.writeTextFile(file, JSON.stringify({ ...JSON.parse(await Deno.readTextFile(file)), seq: 2 }));
  assert.equal(await send(`${channel.url}/gh`, '{"n":6}'), 200);
  await using dev = await startDev(tmp.path, args);
  await until(async () => (await hubSeqs(tmp.path)).length >= 6, "event 6");
  await until(async () => JSON.parse(await Deno.readTextFile(file)).seq === 6, "cursor at 6");
  assert.deepEqual(await hubSeqs(tmp.path), [1, 2, 3, 4, 5, 6]);
  await dev.stop();
});

Deno.test("hub serve --cert/--key serves HTTPS", async () => {
  await using tmp = await withTmpDir();
  // A throwaway CA and a certificate for 127.0.0.1 signed by it.
  const tls = await caAndLeaf(tmp.path);
  const child = new Deno.Command(Deno.execPath(), {
    args: cliArgs(["-A"], ["hub", "serve", "--port", "0", "--cert", tls.certFile, "--key", tls.keyFile]),
    cwd: tmp.path,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  try {
    const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    let m: RegExpMatchArray | null = null;
    while (m === null) {
      const { done, value } = await reader.read();
      if (done) throw new Error(text);
      text += value;
      m = text.match(/listening on (https:\/\/127\.0\.0\.1:\d+)/);
    }
    assert.match(text, /admin API off/);
    reader.releaseLock();
    child.stderr.cancel().catch(() => {});
    const client = Deno.createHttpClient({ caCerts: [await Deno.readTextFile(tls.ca)] });
    const r = await fetch(`${m[1]}/`, { client });
    assert.equal(await r.text(), "hooktap hub\n");
    client.close();
  } finally {
    child.kill("SIGTERM");
    await child.status;
  }
});

function portsFree(ports: number[]): boolean {
  for (const port of ports) {
    try {
      Deno.listen({ hostname: "127.0.0.1", port }).close();
    } catch {
      return false;
    }
  }
  return true;
}

Deno.test({
  name:
    "hub serve with its default port runs beside hooktap dev with its defaults (dev 8787, inspector 8788)",
  // The defaults are fixed ports: skipped (said in the test's name in the output) when another program holds one.
  ignore: !portsFree([8786, 8787, 8788]),
  async fn() {
    await using tmp = await withTmpDir();
    const project = `${tmp.path}/project`;
    await Deno.mkdir(project);
    const dev = new Deno.Command(Deno.execPath(), {
      args: cliArgs(["--allow-net", "--allow-read=.", "--allow-write=.hooktap", "--allow-env"], ["dev"]),
      cwd: project,
      stdin: "null",
      stdout: "null",
      stderr: "piped",
      env: { NO_COLOR: "1" },
    }).spawn();
    const devErr = dev.stderr.pipeThrough(new TextDecoderStream()).getReader();
    let banner = "";
    try {
      while (!banner.includes("Press Ctrl-C")) {
        const { done, value } = await devErr.read();
        if (done) throw new Error(`dev did not start:\n${banner}`);
        banner += value;
      }
      assert.match(banner, /listening on http:\/\/localhost:8787 /);
      assert.match(banner, /Inspect: http:\/\/127\.0\.0\.1:8788\//, "dev's inspector on 8788");
      await using hub = await startHub(tmp.path, 0, [], { defaultPort: true, defaultKv: true });
      assert.equal(hub.port, 8786);
      assert.match(hub.stderr(), /store: .*\.hooktap-hub\/hub\.sqlite/);
      const channel = await createChannel(tmp.path, hub.url);
      assert.equal(await send(`${channel.url}/webhook`, "{}"), 200);
      assert.equal(await send("http://127.0.0.1:8787/webhook", "{}"), 200, "dev still receives");
    } finally {
      dev.kill("SIGINT");
      await dev.status;
      await devErr.cancel().catch(() => {});
    }
  },
});

Deno.test("hub: a held poll whose client goes away frees its connection at once, and the hub's log has no runtime notice", async () => {
  await using tmp = await withTmpDir();
  await using hub = await startHub(tmp.path, 0, ["--max-connections", "1"]);
  const channel = await createChannel(tmp.path, hub.url);
  const api = `${hub.url}/api/channels/${channel.url.split("/c/")[1]}`;
  const auth = { authorization: `Bearer ${channel.token}` };
  // A poll held for 20 s, abandoned by its client after 300 ms.
  const gone = new AbortController();
  const held = fetch(`${api}/events?after=0&wait=20000&client=a`, { headers: auth, signal: gone.signal });
  const first = await held; // the 200 comes at once; its body when the wait ends
  assert.equal(first.status, 200);
  await new Promise((r) => setTimeout(r, 300));
  gone.abort();
  await first.body?.cancel().catch(() => {});
  // The only connection slot is free again well before the 20 s.
  let status = 0;
  for (let i = 0; i < 20 && status !== 200; i++) {
    await new Promise((r) => setTimeout(r, 100));
    const r = await fetch(`${api}/events?after=0&wait=0&client=a`, { headers: auth });
    status = r.status;
    await r.body?.cancel();
  }
  assert.equal(status, 200, "the abandoned poll's slot was freed");
  // A held poll answered by an event (a successful response after waiting).
  const waiting = fetch(`${api}/events?after=0&wait=10000&client=a`, { headers: auth });
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(await send(`${channel.url}/gh`, "hello"), 200);
  const poll = await (await waiting).json() as WirePoll;
  assert.deepEqual(poll.events.map((e) => atob(e.body)), ["hello"]);
  await hub.stop();
  assert.doesNotMatch(hub.stderr(), /request\.signal|legacy/, hub.stderr());
});

/** The permission flags of `deno task dev` (deno.json), as a user runs dev. */
async function devTaskFlags(): Promise<string[]> {
  const json = JSON.parse(await Deno.readTextFile(new URL("../deno.json", import.meta.url)));
  return (json.tasks.dev.command as string).split(" ").filter((w) => w.startsWith("--allow"));
}

Deno.test("hub: the token from .hooktap/hub-token (never argv), the client named <host>-<directory>, a clean Ctrl-C without 'connection lost'", async () => {
  await using tmp = await withTmpDir();
  await using hub = await startHub(tmp.path);
  // channel create: the hint never puts the token on a command line.
  const created = await runCli(["hub", "channel", "create", "--hub", hub.url], {
    cwd: tmp.path,
    permissions: ["--allow-net", "--allow-env"],
    env: { HOOKTAP_HUB_ADMIN_TOKEN: "admin" },
  });
  assert.equal(created.code, 0, created.stderr);
  const [url, token] = created.stdout.trim().split("\n") as [string, string];
  assert.ok(!created.stderr.includes(token), "the hint does not repeat the token");
  assert.doesNotMatch(created.stderr, /--hub-token/);
  assert.match(created.stderr, /\.hooktap\/hub-token/);
  assert.doesNotMatch(created.stderr, /warning/, "no flag given, no warning");

  const project = `${tmp.path}/shop`;
  await writeFile(project, "hooktap.config.ts", CONFIG);
  await writeFile(project, ".hooktap/hub-token", `${token}\n`);
  // Readable by others: refused, saying how to fix it.
  await Deno.chmod(`${project}/.hooktap/hub-token`, 0o644);
  const open = await runCli(["dev", "--port", "0", "--hub", url], {
    cwd: project,
    permissions: await devTaskFlags(),
  });
  assert.notEqual(open.code, 0);
  assert.match(open.stderr, /can be read by other users.*chmod 600/s);
  await Deno.chmod(`${project}/.hooktap/hub-token`, 0o600);

  await using dev = await startDev(project, ["--hub", url], { permissions: await devTaskFlags() });
  assert.doesNotMatch(dev.stderr(), /warning/);
  const expected = `${Deno.hostname().split(".")[0]}-shop`.replace(/[^A-Za-z0-9._@-]+/g, "-");
  await until(() => dev.stderr().includes(`as ${expected} connected`), `dev to connect as ${expected}`);
  const id = url.split("/c/")[1]!;
  const list = await fetch(`${hub.url}/api/channels/${id}/clients`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const { clients } = await list.json() as { clients: { name: string }[] };
  assert.deepEqual(clients.map((c) => c.name), [expected]);
  assert.equal(await dev.stop("SIGINT"), 0);
  assert.doesNotMatch(dev.stderr(), /connection lost/, dev.stderr());

  // The flag still works, with a warning that says why not to.
  await using flagged = await startDev(tmp.path, ["--hub", url, "--hub-token", token]);
  assert.match(
    flagged.stderr(),
    /warning: --hub-token puts the token on the command line, where `ps` shows it/,
  );
});
