/**
 * Several clients per channel, retention, the storage cap and the limits,
 * through the hub's handler on a KV file in a temp directory, with an
 * injected clock.
 */
import assert from "node:assert/strict";
import { hubStoreOn } from "./kv_store.ts";
import type { HubLimits } from "./limits.ts";
import { createHubHandler } from "./server.ts";
import { usage } from "./team.ts";
import type { WireClients, WirePoll, WireStatus } from "./wire.ts";

type Hub = ReturnType<typeof createHubHandler>;

async function withHub(
  limits: Partial<HubLimits>,
  fn: (h: Hub, ctx: { kv: Deno.Kv; clock: { t: number } }) => Promise<void>,
) {
  const dir = await Deno.makeTempDir();
  const kv = await Deno.openKv(`${dir}/hub.sqlite`);
  const clock = { t: Date.parse("2026-01-01T00:00:00Z") };
  const h = createHubHandler({ store: hubStoreOn(kv), adminToken: "admin", limits, now: () => clock.t });
  try {
    await fn(h, { kv, clock });
  } finally {
    h.close();
    await new Promise((r) => setTimeout(r, 50)); // let background trims settle before the KV closes
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
}

async function create(h: Hub) {
  const r = await h(
    new Request("http://hub/api/channels", { method: "POST", headers: { authorization: "Bearer admin" } }),
  );
  assert.equal(r.status, 201, await r.clone().text());
  return await r.json() as { url: string; token: string; id: string };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function send(h: Hub, url: string, body: string | Uint8Array<ArrayBuffer> = "x"): Promise<Response> {
  const r = await h(new Request(`${url}/hook`, { method: "POST", body }));
  await r.arrayBuffer();
  return r;
}

async function poll(h: Hub, id: string, token: string, client: string, after: number) {
  const r = await h(
    new Request(`http://hub/api/channels/${id}/events?after=${after}&wait=0&client=${client}`, {
      headers: bearer(token),
    }),
  );
  assert.equal(r.status, 200, await r.clone().text());
  return await r.json() as WirePoll;
}

async function ack(h: Hub, id: string, token: string, client: string, seq: number) {
  const r = await h(
    new Request(`http://hub/api/channels/${id}/ack?client=${client}`, {
      method: "POST",
      headers: bearer(token),
      body: JSON.stringify({ seq }),
    }),
  );
  assert.equal(r.status, 200);
  await r.arrayBuffer();
}

async function byeAll(h: Hub, id: string, token: string, clients: string[]) {
  for (const c of clients) {
    const r = await h(
      new Request(`http://hub/api/channels/${id}/bye?client=${c}`, {
        method: "POST",
        headers: bearer(token),
      }),
    );
    assert.equal(r.status, 200, await r.text());
  }
}

/** dev's hello (`hello=1`: registers the client), or with `hello` false a plain status read. */
async function status(h: Hub, id: string, token: string, client: string, hello = true) {
  const r = await h(
    new Request(`http://hub/api/channels/${id}?client=${client}${hello ? "&hello=1" : ""}`, {
      headers: bearer(token),
    }),
  );
  assert.equal(r.status, 200, await r.clone().text());
  return await r.json() as WireStatus;
}

async function clients(h: Hub, id: string, token: string) {
  const r = await h(new Request(`http://hub/api/channels/${id}/clients`, { headers: bearer(token) }));
  assert.equal(r.status, 200);
  return (await r.json() as WireClients).clients;
}

/** Lets a background trim run (it is started after an answer). */
const settle = () => new Promise((r) => setTimeout(r, 30));

Deno.test("hub team: two clients each read every event; events go once both acked them", async () => {
  await withHub({}, async (h, { kv }) => {
    const ch = await create(h);
    await status(h, ch.id, ch.token, "alice");
    await status(h, ch.id, ch.token, "bob");
    for (let i = 0; i < 5; i++) assert.equal((await send(h, ch.url, `e${i}`)).status, 200);
    const a = await poll(h, ch.id, ch.token, "alice", 0);
    const b = await poll(h, ch.id, ch.token, "bob", 0);
    assert.deepEqual(a.events.map((e) => e.seq), [1, 2, 3, 4, 5]);
    assert.deepEqual(b.events.map((e) => e.seq), [1, 2, 3, 4, 5]);
    await ack(h, ch.id, ch.token, "alice", 5);
    await settle();
    // bob has not acked: every event is still there for him.
    assert.deepEqual((await poll(h, ch.id, ch.token, "bob", 0)).events.length, 5);
    const listed = await clients(h, ch.id, ch.token);
    assert.deepEqual(listed.map((c) => [c.name, c.waiting]).sort(), [["alice", 0], ["bob", 5]]);
    await ack(h, ch.id, ch.token, "bob", 3);
    await new Promise((r) => setTimeout(r, 1100)); // trims run at most once a second
    await ack(h, ch.id, ch.token, "bob", 3);
    await settle();
    const left = await poll(h, ch.id, ch.token, "bob", 0);
    assert.deepEqual(left.events.map((e) => e.seq), [4, 5]);
    assert.equal(left.low, 3);
    assert.ok((await usage(kv, ch.id)) > 0);
  });
});

async function ackAnswer(h: Hub, id: string, token: string, client: string, body: string) {
  const r = await h(
    new Request(`http://hub/api/channels/${id}/ack?client=${client}`, {
      method: "POST",
      headers: bearer(token),
      body,
    }),
  );
  return { status: r.status, body: await r.json() as { ok: boolean; error?: string; acked?: number } };
}

Deno.test("hub team: a plain status read registers and pins no client; dev's hello does", async () => {
  await withHub({}, async (h) => {
    const ch = await create(h);
    for (let i = 0; i < 3; i++) await send(h, ch.url);
    const read = await status(h, ch.id, ch.token, "default", false);
    assert.equal(read.head, 3);
    assert.equal(read.registered, false);
    await status(h, ch.id, ch.token, "peek", false);
    assert.deepEqual(await clients(h, ch.id, ch.token), []);
    assert.equal((await status(h, ch.id, ch.token, "alice")).registered, true);
    assert.deepEqual((await clients(h, ch.id, ch.token)).map((c) => [c.name, c.pinning]), [["alice", true]]);
  });
});

Deno.test("hub team: an ack past the head is refused, never moves back, and registers no one", async () => {
  await withHub({}, async (h) => {
    const ch = await create(h);
    for (let i = 0; i < 3; i++) await send(h, ch.url);
    await status(h, ch.id, ch.token, "alice");
    const ahead = await ackAnswer(h, ch.id, ch.token, "alice", '{"seq":99999}');
    assert.equal(ahead.status, 400);
    assert.equal(ahead.body.ok, false);
    assert.match(ahead.body.error!, /seq 99999 is past this channel's last event \(3\)/);
    assert.equal((await status(h, ch.id, ch.token, "alice")).acked, 0);
    assert.deepEqual((await ackAnswer(h, ch.id, ch.token, "alice", '{"seq":3}')).body, {
      ok: true,
      acked: 3,
    });
    assert.deepEqual((await ackAnswer(h, ch.id, ch.token, "alice", '{"seq":1}')).body, {
      ok: true,
      acked: 3,
    });
    assert.equal((await status(h, ch.id, ch.token, "alice")).acked, 3);
    for (const bad of ['{"seq":-1}', '{"seq":1.5}', "{bad", '{"seq":"2"}', "x".repeat(5000)]) {
      const r = await ackAnswer(h, ch.id, ch.token, "alice", bad);
      assert.equal(r.status, 400, bad);
      assert.match(r.body.error!, /Send \{"seq": n\}/);
    }
    const stranger = await ackAnswer(h, ch.id, ch.token, "mallory", '{"seq":2}');
    assert.equal(stranger.status, 404);
    assert.deepEqual((await clients(h, ch.id, ch.token)).map((c) => c.name), ["alice"]);
  });
});

Deno.test("hub team: a removed client stops pinning events", async () => {
  await withHub({}, async (h, { kv }) => {
    const ch = await create(h);
    await status(h, ch.id, ch.token, "alice");
    await status(h, ch.id, ch.token, "gone");
    for (let i = 0; i < 3; i++) await send(h, ch.url);
    await ack(h, ch.id, ch.token, "alice", 3);
    await settle();
    assert.equal((await poll(h, ch.id, ch.token, "alice", 0)).events.length, 3, "gone still pins them");
    const r = await h(
      new Request(`http://hub/api/channels/${ch.id}/clients/gone`, {
        method: "DELETE",
        headers: bearer(ch.token),
      }),
    );
    assert.equal(r.status, 200);
    await r.arrayBuffer();
    await settle();
    assert.equal((await poll(h, ch.id, ch.token, "alice", 0)).events.length, 0);
    assert.equal(await usage(kv, ch.id), 0);
    assert.deepEqual((await clients(h, ch.id, ch.token)).map((c) => c.name), ["alice"]);
    const again = await h(
      new Request(`http://hub/api/channels/${ch.id}/clients/gone`, {
        method: "DELETE",
        headers: bearer(ch.token),
      }),
    );
    assert.equal(again.status, 404);
    await again.arrayBuffer();
  });
});

Deno.test("hub team: a rotated or revoked token is refused at once, on a held poll too", async () => {
  await withHub({}, async (h) => {
    const ch = await create(h);
    const held = h(
      new Request(`http://hub/api/channels/${ch.id}/events?after=0&wait=20000&client=a`, {
        headers: bearer(ch.token),
      }),
    );
    await new Promise((r) => setTimeout(r, 100));
    const rot = await h(
      new Request(`http://hub/api/channels/${ch.id}/token/rotate`, {
        method: "POST",
        headers: bearer("admin"),
      }),
    );
    assert.equal(rot.status, 200);
    const { token } = await rot.json() as { token: string };
    const cut = await held;
    // A held poll's 200 went out when it started to wait: the refusal comes in its body.
    assert.equal(cut.status, 200);
    const ended = (await cut.json() as WirePoll).ended;
    assert.equal(ended?.status, 401, "the held poll is cut off");
    const old = await h(
      new Request(`http://hub/api/channels/${ch.id}?client=a`, { headers: bearer(ch.token) }),
    );
    assert.equal(old.status, 401);
    await old.arrayBuffer();
    assert.equal((await status(h, ch.id, token, "a")).head, 0);
    const rev = await h(
      new Request(`http://hub/api/channels/${ch.id}/token/revoke`, {
        method: "POST",
        headers: bearer("admin"),
      }),
    );
    assert.equal(rev.status, 200);
    await rev.arrayBuffer();
    const after = await h(
      new Request(`http://hub/api/channels/${ch.id}?client=a`, { headers: bearer(token) }),
    );
    assert.equal(after.status, 401);
    await after.arrayBuffer();
    // Senders still reach it; a channel token cannot rotate.
    assert.equal((await send(h, ch.url)).status, 200);
    const self = await h(
      new Request(`http://hub/api/channels/${ch.id}/token/rotate`, {
        method: "POST",
        headers: bearer(token),
      }),
    );
    assert.equal(self.status, 401);
    await self.arrayBuffer();
  });
});

Deno.test("hub team: retention drops events no client acked; a client away longer no longer pins them", async () => {
  await withHub({ retentionMs: 60_000 }, async (h, { kv, clock }) => {
    const ch = await create(h);
    await status(h, ch.id, ch.token, "away");
    for (let i = 0; i < 4; i++) await send(h, ch.url, "x".repeat(1000));
    assert.ok((await usage(kv, ch.id)) >= 4000);
    clock.t += 61_000;
    await new Promise((r) => setTimeout(r, 1100)); // trims run at most once a second
    await status(h, ch.id, ch.token, "other"); // any contact trims
    await settle();
    assert.equal(await usage(kv, ch.id), 0, "storage freed");
    const st = await status(h, ch.id, ch.token, "away");
    assert.equal(st.low, 4);
    const p = await poll(h, ch.id, ch.token, "away", 0);
    assert.equal(p.low, 4, "the poll says what was dropped");
    assert.equal(p.events.length, 0);
    const listed = await clients(h, ch.id, ch.token);
    assert.ok(listed.every((c) => c.pinning));
    // The list counts waiting as the status does: the dropped events are not waiting for anyone.
    assert.equal(st.waiting, 0);
    assert.deepEqual(listed.map((c) => [c.name, c.acked, c.waiting]), [["away", 0, 0], ["other", 4, 0]]);
  });
});

Deno.test("hub team: the storage cap drops acked events first, then answers 507", async () => {
  await withHub({ maxChannelBytes: 10_000 }, async (h) => {
    const ch = await create(h);
    await status(h, ch.id, ch.token, "a");
    const big = "y".repeat(3000);
    for (let i = 0; i < 3; i++) assert.equal((await send(h, ch.url, big)).status, 200);
    const full = await send(h, ch.url, big);
    assert.equal(full.status, 507);
    await ack(h, ch.id, ch.token, "a", 2);
    assert.equal((await send(h, ch.url, big)).status, 200, "acked events make room");
    const p = await poll(h, ch.id, ch.token, "a", 2);
    assert.deepEqual(p.events.map((e) => e.seq), [3, 4]);
    assert.equal(p.refused?.count, 1, "dev is told how many were refused");
  });
});

Deno.test("hub team: rate, channels, clients and connections limits answer as documented", async () => {
  await withHub({ ratePerMinute: 3, maxChannels: 1, maxClients: 1, maxConnections: 1 }, async (h) => {
    const ch = await create(h);
    for (let i = 0; i < 3; i++) assert.equal((await send(h, ch.url)).status, 200);
    const limited = await send(h, ch.url);
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get("retry-after")) >= 1);
    const second = await h(
      new Request("http://hub/api/channels", { method: "POST", headers: bearer("admin") }),
    );
    assert.equal(second.status, 403);
    assert.match(await second.text(), /--max-channels/);
    await status(h, ch.id, ch.token, "one");
    const two = await h(
      new Request(`http://hub/api/channels/${ch.id}?client=two&hello=1`, { headers: bearer(ch.token) }),
    );
    assert.equal(two.status, 403);
    assert.match(await two.text(), /has 1 client already \(hub serve --max-clients\)/);
    const held = h(
      new Request(`http://hub/api/channels/${ch.id}/events?after=3&wait=5000&client=one`, {
        headers: bearer(ch.token),
      }),
    );
    await new Promise((r) => setTimeout(r, 100));
    const more = await h(
      new Request(`http://hub/api/channels/${ch.id}/events?after=3&wait=0&client=one`, {
        headers: bearer(ch.token),
      }),
    );
    assert.equal(more.status, 429);
    assert.match(await more.text(), /--max-connections/);
    h.close();
    await (await held).arrayBuffer();
  });
});

Deno.test("hub team: channel rm deletes the channel and all it holds; no endpoint lists channels", async () => {
  await withHub({}, async (h, { kv }) => {
    const ch = await create(h);
    await status(h, ch.id, ch.token, "a");
    await send(h, ch.url, new Uint8Array(100_000)); // chunked
    const list = await h(new Request("http://hub/api/channels", { headers: bearer("admin") }));
    assert.equal(list.status, 405);
    await list.arrayBuffer();
    const r = await h(
      new Request(`http://hub/api/channels/${ch.id}`, { method: "DELETE", headers: bearer("admin") }),
    );
    assert.equal(r.status, 200);
    await r.arrayBuffer();
    const left: Deno.KvKey[] = [];
    for await (const e of kv.list({ prefix: ["hub"] })) if (e.key.includes(ch.id)) left.push(e.key);
    assert.deepEqual(left, []);
    assert.equal((await send(h, ch.url)).status, 404);
    assert.equal((await create(h)).url.length > 0, true, "the count of channels went down");
  });
});

Deno.test("hub: a sender that dribbles its body is cut off with 408 and nothing is stored", async () => {
  const dir = await Deno.makeTempDir();
  const kv = await Deno.openKv(`${dir}/hub.sqlite`);
  const h = createHubHandler({ store: hubStoreOn(kv), adminToken: "admin", bodyTimeoutMs: 200 });
  try {
    const ch = await create(h);
    let pull = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(c) {
        if (pull++ === 0) c.enqueue(new Uint8Array([1]));
        else await new Promise((r) => setTimeout(r, 400)); // never more, never done
      },
    });
    const r = await h(
      new Request(`${ch.url}/hook`, { method: "POST", body, headers: { "content-length": "10" } }),
    );
    assert.equal(r.status, 408);
    await r.arrayBuffer();
    await body.cancel().catch(() => {});
    assert.equal((await poll(h, ch.id, ch.token, "a", 0)).events.length, 0);
  } finally {
    h.close();
    await new Promise((r) => setTimeout(r, 450));
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("hub team: a client away longer than the retention no longer pins events the others acked", async () => {
  await withHub({ retentionMs: 60_000 }, async (h, { kv, clock }) => {
    const ch = await create(h);
    await status(h, ch.id, ch.token, "drawer");
    clock.t += 61_000; // the drawer laptop is not seen again
    await status(h, ch.id, ch.token, "active");
    for (let i = 0; i < 3; i++) await send(h, ch.url); // fresh events, well within the retention
    await ack(h, ch.id, ch.token, "active", 3);
    await new Promise((r) => setTimeout(r, 1100)); // trims run at most once a second
    await ack(h, ch.id, ch.token, "active", 3);
    await settle();
    assert.equal((await poll(h, ch.id, ch.token, "active", 0)).events.length, 0);
    assert.equal(await usage(kv, ch.id), 0);
    const listed = await clients(h, ch.id, ch.token);
    assert.deepEqual(listed.map((c) => [c.name, c.pinning]).sort(), [["active", true], ["drawer", false]]);
  });
});

Deno.test("hub: bodies in flight share one byte budget: past it, 503 and nothing stored", async () => {
  const dir = await Deno.makeTempDir();
  const kv = await Deno.openKv(`${dir}/hub.sqlite`);
  const h = createHubHandler({
    store: hubStoreOn(kv),
    adminToken: "admin",
    maxBodySize: 64 * 1024,
    maxBodyBytesInFlight: 100_000,
    bodyTimeoutMs: 400,
  });
  try {
    const ch = await create(h);
    const stalled = () =>
      new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(new Uint8Array(1));
        },
      });
    const first = h(
      new Request(`${ch.url}/hook`, {
        method: "POST",
        body: stalled(),
        headers: { "content-length": "60000" },
      }),
    );
    await new Promise((r) => setTimeout(r, 50));
    const second = await h(
      new Request(`${ch.url}/hook`, {
        method: "POST",
        body: stalled(),
        headers: { "content-length": "60000" },
      }),
    );
    assert.equal(second.status, 503);
    assert.equal(second.headers.get("retry-after"), "2");
    await second.arrayBuffer();
    const alive = setTimeout(() => {}, 3000); // the watch's timer is unref'd; a socket would hold the loop
    const cut = await first;
    clearTimeout(alive);
    assert.equal(cut.status, 408, "the stalled body is cut off");
    await cut.arrayBuffer();
    assert.equal((await send(h, ch.url, "after")).status, 200, "the budget was given back");
    assert.equal((await poll(h, ch.id, ch.token, "a", 0)).events.length, 1);
  } finally {
    h.close();
    await new Promise((r) => setTimeout(r, 50));
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("hub team: bye answers 404 for a name never registered, 400 with a body or no client, and creates nothing", async () => {
  await withHub({}, async (h) => {
    const { id, token } = await create(h);
    const bye = async (query: string, init: RequestInit = {}) => {
      const r = await h(
        new Request(`http://hub/api/channels/${id}/bye${query}`, {
          method: "POST",
          headers: bearer(token),
          ...init,
        }),
      );
      return { status: r.status, body: await r.text() };
    };
    const stranger = await bye("?client=stranger");
    assert.equal(stranger.status, 404, stranger.body);
    assert.match(stranger.body, /No client named \\"stranger\\"/);
    assert.equal((await bye("")).status, 400);
    const withBody = await bye("?client=alice", {
      headers: { ...bearer(token), "content-length": "5" },
      body: "hello",
    });
    assert.equal(withBody.status, 400);
    assert.match(withBody.body, /no body/);
    // The stranger was not registered by its bye: the channel lists no client.
    const list = await h(new Request(`http://hub/api/channels/${id}/clients`, { headers: bearer(token) }));
    assert.deepEqual((await list.json() as WireClients).clients, []);
    await status(h, id, token, "alice");
    assert.equal((await bye("?client=alice")).status, 200);
    assert.equal((await status(h, id, token, "alice", false)).connected, false);
  });
});

Deno.test("hub team: events every client acked in quick succession go (a trailing trim) and are never handed to a new client", async () => {
  await withHub({}, async (h) => {
    const { id, token, url } = await create(h);
    for (const c of ["x", "y", "z"]) await status(h, id, token, c);
    await byeAll(h, id, token, ["x", "y", "z"]); // registered, not connected: senders are not held
    for (let i = 0; i < 6; i++) assert.equal((await send(h, url)).status, 200);
    for (const c of ["x", "y", "z"]) await ack(h, id, token, c, 6);
    // A hello right after: the new client registers past what everyone acked.
    const w = await status(h, id, token, "w");
    assert.deepEqual({ acked: w.acked, low: w.low, waiting: w.waiting }, { acked: 6, low: 6, waiting: 0 });
    assert.deepEqual((await poll(h, id, token, "w", 0)).events.map((e) => e.seq), []);
    await byeAll(h, id, token, ["w"]);
    // Acks within the throttle's second, then nothing: the skipped trims still run.
    for (let i = 0; i < 3; i++) assert.equal((await send(h, url)).status, 200);
    for (const c of ["x", "y", "z", "w"]) await ack(h, id, token, c, 9);
    await new Promise((r) => setTimeout(r, 1500));
    const after = await poll(h, id, token, "x", 0);
    assert.deepEqual({ events: after.events.map((e) => e.seq), low: after.low }, { events: [], low: 9 });
  });
});

Deno.test("hub team: connected is true from a hello (as documented) and false for a name that never said hello nor polled", async () => {
  await withHub({}, async (h) => {
    const { id, token } = await create(h);
    assert.equal((await status(h, id, token, "never", false)).connected, false);
    await status(h, id, token, "greeted");
    assert.equal((await status(h, id, token, "greeted", false)).connected, true, "its hello counts");
    await byeAll(h, id, token, ["greeted"]);
    assert.equal((await status(h, id, token, "greeted", false)).connected, false);
  });
});

Deno.test("hub team: the client API refuses unknown or repeated query parameters and unknown ack keys, naming them", async () => {
  await withHub({}, async (h) => {
    const { id, token, url } = await create(h);
    await status(h, id, token, "a");
    await byeAll(h, id, token, ["a"]); // registered, not connected: the sender is not held
    assert.equal((await send(h, url)).status, 200);
    const call = async (path: string, init: RequestInit = {}) => {
      const r = await h(
        new Request(`http://hub/api/channels/${id}${path}`, { headers: bearer(token), ...init }),
      );
      return { status: r.status, body: await r.text() };
    };
    const post = (body: string) => ({ method: "POST", body });
    const events = await call("/events?after=0&wait=0&client=a&zzz=1");
    assert.equal(events.status, 400);
    assert.match(events.body, /unknown query parameter "zzz"/);
    const twice = await call("/ack?client=b&client=a", post('{"seq":1}'));
    assert.equal(twice.status, 400);
    assert.match(twice.body, /"client" given more than once/);
    const junk = await call("/ack?client=a", post('{"seq":1,"junk":2}'));
    assert.equal(junk.status, 400);
    assert.match(junk.body, /Unknown key \\"junk\\"/);
    assert.equal((await call("?client=a&hello=1&x=1")).status, 400);
    assert.equal((await call("?client=a&hello=yes")).status, 400);
    assert.equal((await call("/bye?client=a&why=1", { method: "POST" })).status, 400);
    // Nothing was acked by the refused calls; the well-formed ones still work.
    assert.equal((await status(h, id, token, "a", false)).acked, 0);
    assert.equal((await call("/ack?client=a", post('{"seq":1}'))).status, 200);
    assert.equal((await call("/events?after=1&wait=0&limit=5&client=a")).status, 200);
  });
});
