/**
 * Hostile input at every hub route, against a real `hooktap hub serve` on a
 * KV file in a temp directory, over raw sockets: oversize bodies, slow and
 * huge headers, garbage paths, bad API input, many idle connections. Each
 * gets a 4xx or a closed connection, never a crash; the hub keeps serving;
 * afterwards its store holds exactly the requests it acknowledged.
 * @module
 */
import assert from "node:assert/strict";
import { withTmpDir } from "../_helpers.ts";
import { createChannel, send, startHub } from "../_hub.ts";
import { HttpConn, type RawResponse } from "./_http.ts";
import type { WirePoll } from "../../src/hub/wire.ts";

type Outcome = RawResponse | "closed" | "timeout";

async function exchange(port: number, raw: string | Uint8Array, timeoutMs = 3000): Promise<Outcome> {
  const conn = await HttpConn.open(port);
  try {
    await conn.send(raw).catch(() => {});
    let timer: ReturnType<typeof setTimeout> | undefined;
    const got = await Promise.race([
      conn.readResponse(false).catch(() => "closed" as const),
      new Promise<"timeout">((r) => (timer = setTimeout(() => r("timeout"), timeoutMs))),
    ]);
    clearTimeout(timer);
    return got;
  } finally {
    conn.close();
  }
}

const statusOf = (o: Outcome) => typeof o === "string" ? o : o.status;

Deno.test("hub: hostile requests to every route leave it serving and its store intact", async () => {
  await using tmp = await withTmpDir();
  await using hub = await startHub(tmp.path, 0, ["--max-body-size", "64KiB"]);
  const channel = await createChannel(tmp.path, hub.url);
  const id = channel.url.split("/c/")[1]!;
  const host = `Host: 127.0.0.1:${hub.port}\r\n`;
  const accepted: string[] = [];
  const good = async (body: string) => {
    const r = await fetch(`${channel.url}/gh`, { method: "POST", body });
    await r.arrayBuffer();
    assert.equal(r.status, 200);
    accepted.push(body);
  };
  await good("first");

  // Many idle connections and slow headers, held open while the rest runs.
  const held: Deno.TcpConn[] = [];
  for (let i = 0; i < 100; i++) {
    const c = await Deno.connect({ hostname: "127.0.0.1", port: hub.port });
    if (i % 2 === 0) await c.write(new TextEncoder().encode(`POST /c/${id}/gh HTTP/1.1\r\n${host}X-Slow: `));
    held.push(c);
  }
  await good("while held");

  const cases: [string, string | Uint8Array, (number | string)[]][] = [
    [
      "oversize body",
      `POST /c/${id}/gh HTTP/1.1\r\n${host}Content-Length: 70000\r\n\r\n${"x".repeat(70000)}`,
      [413, "closed"],
    ],
    ["lying length", `POST /c/${id}/gh HTTP/1.1\r\n${host}Content-Length: 99999999999\r\n\r\nabc`, [
      413,
      400,
      "closed",
    ]],
    [
      "huge header",
      `POST /c/${id}/gh HTTP/1.1\r\n${host}X-Big: ${"a".repeat(200_000)}\r\nContent-Length: 1\r\n\r\nx`,
      [431, 400, "closed"],
    ],
    ["garbage path", `GET /%00%ff/../../etc HTTP/1.1\r\n${host}\r\n`, [404, 400]],
    ["dot path into the API", `GET /c/../api/channels HTTP/1.1\r\n${host}\r\n`, [404, 405, 400]],
    ["channel list", `GET /api/channels HTTP/1.1\r\n${host}\r\n`, [405]],
    ["API without a token", `GET /api/channels/${id}/events?after=0 HTTP/1.1\r\n${host}\r\n`, [401]],
    [
      "API wrong token",
      `GET /api/channels/${id}/clients HTTP/1.1\r\n${host}Authorization: Bearer htk_x\r\n\r\n`,
      [401],
    ],
    [
      "bad cursor",
      `GET /api/channels/${id}/events?after=-1&wait=0 HTTP/1.1\r\n${host}Authorization: Bearer ${channel.token}\r\n\r\n`,
      [400],
    ],
    [
      "bad client name",
      `GET /api/channels/${id}?client=%3Cscript%3E HTTP/1.1\r\n${host}Authorization: Bearer ${channel.token}\r\n\r\n`,
      [400],
    ],
    [
      "garbage ack",
      `POST /api/channels/${id}/ack HTTP/1.1\r\n${host}Authorization: Bearer ${channel.token}\r\nContent-Length: 5\r\n\r\n{{{{{`,
      [400],
    ],
    [
      "garbage answer",
      `POST /api/channels/${id}/answers/1 HTTP/1.1\r\n${host}Authorization: Bearer ${channel.token}\r\nContent-Length: 2\r\n\r\n[]`,
      [400],
    ],
    [
      "deep API path",
      `GET /api/channels/${id}/a/b/c/d HTTP/1.1\r\n${host}Authorization: Bearer ${channel.token}\r\n\r\n`,
      [404],
    ],
    [
      "admin route without admin",
      `DELETE /api/channels/${id} HTTP/1.1\r\n${host}Authorization: Bearer ${channel.token}\r\n\r\n`,
      [401],
    ],
    ["not HTTP", "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03garbage\r\n\r\n", [400, "closed"]],
    ["bare newlines", "\r\n\r\n\r\n", [400, "closed", "timeout"]],
  ];
  for (const [name, raw, expected] of cases) {
    const got = statusOf(await exchange(hub.port, raw, 1500));
    assert.ok(expected.includes(got), `${name}: got ${got}, expected one of ${expected.join(", ")}`);
    await good(`after ${name}`);
  }
  // A flood of oversize bodies at once.
  const flood = await Promise.all(
    Array.from(
      { length: 20 },
      () =>
        fetch(`${channel.url}/gh`, { method: "POST", body: new Uint8Array(100_000) }).then(async (r) => {
          await r.arrayBuffer();
          return r.status;
        }).catch(() => 0),
    ),
  );
  assert.ok(flood.every((s) => s === 413 || s === 0), `flood: ${flood.join()}`);
  await good("after the flood");
  for (const c of held) c.close();

  const r = await fetch(`${hub.url}/api/channels/${id}/events?after=0&wait=0`, {
    headers: { authorization: `Bearer ${channel.token}` },
  });
  const poll = await r.json() as WirePoll;
  assert.deepEqual(
    poll.events.map((e) => new TextDecoder().decode(Uint8Array.fromBase64(e.body))),
    accepted,
    "the store holds exactly the acknowledged requests, in order, byte-exact",
  );
  assert.ok(!hub.stderr().includes(channel.token));
});

/** Retries `attempt` until it resolves to true or `ms` pass. */
async function eventually(attempt: () => Promise<boolean>, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await attempt().catch(() => false)) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

Deno.test({
  name: "hub: out of descriptors (prlimit --nofile=256, 400 connections) it serves again once they close",
  ignore: !(await Deno.stat("/usr/bin/prlimit").then(() => true, () => false)),
  async fn() {
    await using tmp = await withTmpDir();
    await using hub = await startHub(tmp.path, 0, [], { wrap: ["prlimit", "--nofile=256", "--"] });
    const channel = await createChannel(tmp.path, hub.url);
    assert.equal(await send(`${channel.url}/gh`, "before"), 200);
    // 400 plain TCP connections, no channel, no token: more than the hub has descriptors.
    const settled = await Promise.allSettled(
      Array.from({ length: 400 }, () =>
        Promise.race([
          Deno.connect({ hostname: "127.0.0.1", port: hub.port }),
          new Promise<never>((_, reject) => setTimeout(() => reject(new Error("connect timed out")), 3000)),
        ])),
    );
    const conns = settled.flatMap((s) => s.status === "fulfilled" ? [s.value] : []);
    // Held a moment: the hub's accept loop runs out of descriptors meanwhile.
    await new Promise((r) => setTimeout(r, 1500));
    for (const c of conns) {
      try {
        c.close();
      } catch { /* closed by the hub */ }
    }
    const exited = await Promise.race([hub.status.then(() => true), new Promise((r) => setTimeout(r, 500))]);
    assert.notEqual(exited, true, `the hub exited:\n${hub.stderr()}`);
    const posted = await eventually(async () => (await send(`${channel.url}/gh`, "after")) === 200, 15_000);
    assert.ok(posted, `a channel POST after the flood is stored:\n${hub.stderr()}`);
    // The flood did run the hub out of descriptors (else this test would prove nothing), and it said so.
    assert.match(hub.stderr(), /stopped accepting connections \(.*\); serving again/);
    const r = await fetch(`${hub.url}/api/channels/${channel.url.split("/c/")[1]}/events?after=0&wait=0`, {
      headers: { authorization: `Bearer ${channel.token}` },
    });
    const poll = await r.json() as WirePoll;
    assert.deepEqual(
      poll.events.map((e) => new TextDecoder().decode(Uint8Array.fromBase64(e.body))),
      ["before", "after"],
    );
  },
});

Deno.test("hub: one channel's (and one address's) stalled uploads leave the other channels their budget", async () => {
  await using tmp = await withTmpDir();
  // Scaled down: a 1 MiB hub budget, 256 KiB per channel, 512 KiB per address; bodies of 60,000 bytes.
  await using hub = await startHub(tmp.path, 0, [
    "--max-body-size",
    "64KiB",
    "--max-bytes-in-flight",
    "1MiB",
    "--max-bytes-in-flight-per-channel",
    "256KiB",
    "--max-bytes-in-flight-per-address",
    "512KiB",
  ]);
  const [a, b, c] = [
    await createChannel(tmp.path, hub.url),
    await createChannel(tmp.path, hub.url),
    await createChannel(tmp.path, hub.url),
  ];
  const held: HttpConn[] = [];
  /** Starts an upload of 60,000 bytes that sends one byte and stalls: its status, or "held" while it waits. */
  const stall = async (url: string): Promise<number | "held"> => {
    const conn = await HttpConn.open(hub.port);
    held.push(conn);
    const path = new URL(url).pathname;
    await conn.send(
      `POST ${path}/gh HTTP/1.1\r\nHost: 127.0.0.1:${hub.port}\r\nContent-Length: 60000\r\n\r\nx`,
    );
    let timer: ReturnType<typeof setTimeout> | undefined;
    const got = await Promise.race([
      conn.readResponse(false).then((r) => r.status, () => 0),
      new Promise<"held">((r) => (timer = setTimeout(() => r("held"), 400))),
    ]);
    clearTimeout(timer);
    return got;
  };
  // A refusal given before the body's end closes its connection (the answer's last chunk never comes: an
  // HTTP client such as fetch reports the status, then a broken body), so the answer is read raw.
  const post = async (url: string) => {
    const conn = await HttpConn.open(hub.port);
    try {
      const r = await conn.request({ path: `${new URL(url).pathname}/gh`, body: new Uint8Array(50_000) });
      return { status: r.status, text: r.text() };
    } finally {
      conn.close();
    }
  };
  try {
    // Channel A: 20 stalled uploads (1.2 MB, more than the whole hub's budget); its own bound takes 4.
    const onA: (number | "held")[] = [];
    for (let i = 0; i < 20; i++) onA.push(await stall(a.url));
    assert.equal(onA.filter((s) => s === "held").length, 4, onA.join());
    assert.ok(onA.filter((s) => s !== "held").every((s) => s === 503), onA.join());
    const refusedA = await post(a.url);
    assert.equal(refusedA.status, 503);
    assert.match(refusedA.text, /for this channel/);
    // Channel B still receives.
    assert.equal((await post(b.url)).status, 200, "channel B is not starved by channel A");
    // Channel C, from the same address: 4 more held; then this address has 480,000 bytes in flight.
    const onC: (number | "held")[] = [];
    for (let i = 0; i < 4; i++) onC.push(await stall(c.url));
    assert.deepEqual(onC, ["held", "held", "held", "held"]);
    const refusedB = await post(b.url);
    assert.equal(refusedB.status, 503, "past the address's bound");
    assert.match(refusedB.text, /for your address/);
  } finally {
    for (const conn of held) conn.close();
  }
  assert.ok(
    await eventually(async () => (await post(b.url)).status === 200, 5000),
    "once the stalled uploads close, the budgets are given back",
  );
});

Deno.test("hub: 40 concurrent 100 KiB senders into a 1 MiB channel store at most 1 MiB, and every 200 is stored", async () => {
  await using tmp = await withTmpDir();
  await using hub = await startHub(tmp.path, 0, ["--max-channel-bytes", "1MiB"]);
  const channel = await createChannel(tmp.path, hub.url);
  const id = channel.url.split("/c/")[1]!;
  const r = await fetch(`${hub.url}/api/channels/${id}?client=away&hello=1`, {
    headers: { authorization: `Bearer ${channel.token}` },
  });
  await r.body?.cancel();
  const statuses = await Promise.all(
    Array.from({ length: 40 }, (_, i) => send(`${channel.url}/gh`, new Uint8Array(100 * 1024).fill(i))),
  );
  assert.ok(statuses.every((s) => s === 200 || s === 507), statuses.join());
  const accepted = statuses.filter((s) => s === 200).length;
  assert.ok(accepted >= 1, "some are stored");
  const poll = await fetch(`${hub.url}/api/channels/${id}/events?after=0&wait=0&client=away`, {
    headers: { authorization: `Bearer ${channel.token}` },
  });
  const { events } = await poll.json() as {
    events: { body: string; path: string; query: string; headers: string[][] }[];
  };
  assert.equal(events.length, accepted, "every 200 is stored, nothing else");
  const stored = events.reduce(
    (n, e) =>
      n + Uint8Array.fromBase64(e.body).length + e.path.length + e.query.length +
      e.headers.reduce((m, [k, v]) => m + k!.length + v!.length + 8, 0),
    0,
  );
  assert.ok(stored <= 1024 * 1024, `stored ${stored} bytes in a 1 MiB channel`);
});

Deno.test({
  name:
    "hub serve: its KV directory is 0700 and hub.sqlite with its -wal and -shm files 0600, whatever the umask",
  ignore: Deno.build.os === "windows",
  async fn() {
    await using tmp = await withTmpDir();
    const mode = async (path: string) => ((await Deno.stat(path)).mode ?? 0) & 0o777;
    {
      // umask 000: every file would be created 0666 (0777 for a directory) but for the hub's own modes.
      await using hub = await startHub(tmp.path, 0, [], {
        defaultKv: true,
        wrap: ["sh", "-c", 'umask 000; exec "$0" "$@"'],
      });
      const channel = await createChannel(tmp.path, hub.url);
      assert.equal(await send(`${channel.url}/gh`, "secret payload"), 200);
      const kv = `${tmp.path}/.hooktap-hub/hub.sqlite`;
      assert.equal((await mode(`${tmp.path}/.hooktap-hub`)).toString(8), "700");
      for (const file of [kv, `${kv}-wal`, `${kv}-shm`]) {
        assert.equal((await mode(file)).toString(8), "600", file);
      }
      await hub.stop();
    }
    // A store from before (0755 directory, 0644 files) is made private at the next start.
    await Deno.chmod(`${tmp.path}/.hooktap-hub`, 0o755);
    await Deno.chmod(`${tmp.path}/.hooktap-hub/hub.sqlite`, 0o644);
    await using again = await startHub(tmp.path, 0, [], { defaultKv: true });
    assert.equal((await mode(`${tmp.path}/.hooktap-hub`)).toString(8), "700");
    assert.equal((await mode(`${tmp.path}/.hooktap-hub/hub.sqlite`)).toString(8), "600");
    await again.stop();
  },
});

Deno.test("hub: two hub processes on one KV file hold the channel's storage cap together", async () => {
  await using tmp = await withTmpDir();
  await using one = await startHub(tmp.path, 0, ["--max-channel-bytes", "1MiB"]);
  await using two = await startHub(tmp.path, 0, ["--max-channel-bytes", "1MiB"]); // the same --kv file
  const channel = await createChannel(tmp.path, one.url);
  const id = channel.url.split("/c/")[1]!;
  const auth = { authorization: `Bearer ${channel.token}` };
  const r = await fetch(`${one.url}/api/channels/${id}?client=away&hello=1`, { headers: auth });
  await r.body?.cancel();
  const statuses = await Promise.all(
    Array.from(
      { length: 40 },
      (_, i) => send(`${i % 2 ? one.url : two.url}/c/${id}/gh`, new Uint8Array(100 * 1024).fill(i)),
    ),
  );
  // 503: a store busy with the other process past the retries (nothing stored); never a 200 past the cap.
  assert.ok(statuses.every((s) => s === 200 || s === 507 || s === 503), statuses.join());
  const accepted = statuses.filter((s) => s === 200).length;
  const poll = await fetch(`${two.url}/api/channels/${id}/events?after=0&wait=0&client=away`, {
    headers: auth,
  });
  const { events } = await poll.json() as { events: { body: string }[] };
  assert.equal(events.length, accepted, "every 200 is stored, nothing else");
  const bodies = events.reduce((n, e) => n + Uint8Array.fromBase64(e.body).length, 0);
  assert.ok(bodies <= 1024 * 1024, `stored ${bodies} body bytes in a 1 MiB channel`);
  assert.ok(accepted >= 5, `the cap is used (${accepted} stored)`);
});
