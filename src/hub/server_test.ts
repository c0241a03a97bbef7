import assert from "node:assert/strict";
import { hubStoreOn } from "./kv_store.ts";
import { createHubHandler, NO_CHANNEL } from "./server.ts";
import type { WirePoll } from "./wire.ts";

async function withHub(fn: (h: ReturnType<typeof createHubHandler>, kvPath: string) => Promise<void>) {
  const dir = await Deno.makeTempDir();
  const kv = await Deno.openKv(`${dir}/hub.sqlite`);
  const handler = createHubHandler({
    store: hubStoreOn(kv),
    adminToken: "admin",
    maxBodySize: 6 * 1024 * 1024,
  });
  try {
    await fn(handler, `${dir}/hub.sqlite`);
  } finally {
    handler.close();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
}

async function create(h: ReturnType<typeof createHubHandler>) {
  const r = await h(
    new Request("http://hub/api/channels", { method: "POST", headers: { authorization: "Bearer admin" } }),
  );
  assert.deepStrictEqual(r.status, 201);
  return await r.json() as { url: string; token: string; id: string };
}

async function poll(h: ReturnType<typeof createHubHandler>, id: string, token: string, after = 0) {
  const r = await h(
    new Request(`http://hub/api/channels/${id}/events?after=${after}&wait=0`, {
      headers: { authorization: `Bearer ${token}` },
    }),
  );
  assert.deepStrictEqual(r.status, 200);
  return await r.json() as WirePoll;
}

Deno.test("hub: a channel stores a request byte-exact and a client reads it after its cursor", async () => {
  await withHub(async (h) => {
    const ch = await create(h);
    assert.ok(/^http:\/\/hub\/c\/[A-Za-z0-9_-]{22}$/.test(ch.url));
    const body = new Uint8Array([0xff, 0, 1, 2]);
    const r = await h(
      new Request(`${ch.url}/webhook?a=1&a=2`, { method: "POST", body, headers: { "X-Sig": "abc" } }),
    );
    assert.deepStrictEqual(r.status, 200);
    const got = await poll(h, ch.id, ch.token);
    assert.deepStrictEqual(got.events.length, 1);
    const e = got.events[0]!;
    assert.deepStrictEqual([e.seq, e.method, e.path, e.query], [1, "POST", "/webhook", "a=1&a=2"]);
    assert.deepStrictEqual(Uint8Array.fromBase64(e.body), body);
    assert.ok(e.headers.some(([k, v]) => k.toLowerCase() === "x-sig" && v === "abc"));
    assert.deepStrictEqual((await poll(h, ch.id, ch.token, 1)).events.length, 0);
  });
});

Deno.test("hub: an unknown channel and a malformed id get the same 404", async () => {
  await withHub(async (h) => {
    await create(h);
    const a = await h(new Request("http://hub/c/AAAAAAAAAAAAAAAAAAAAAA/x", { method: "POST", body: "1" }));
    const b = await h(new Request("http://hub/c/nope/x", { method: "POST", body: "1" }));
    assert.deepStrictEqual([a.status, await a.text()], [404, NO_CHANNEL + "\n"]);
    assert.deepStrictEqual([b.status, await b.text()], [404, NO_CHANNEL + "\n"]);
  });
});

Deno.test("hub: an oversize body gets 413 and nothing is stored", async () => {
  await withHub(async (h) => {
    const ch = await create(h);
    const r = await h(
      new Request(`${ch.url}/w`, { method: "POST", body: new Uint8Array(6 * 1024 * 1024 + 1) }),
    );
    assert.deepStrictEqual(r.status, 413);
    await r.body?.cancel();
    assert.deepStrictEqual((await poll(h, ch.id, ch.token)).events.length, 0);
  });
});

Deno.test("hub: a 5 MiB body is stored in chunks and read back whole", async () => {
  await withHub(async (h) => {
    const ch = await create(h);
    const body = crypto.getRandomValues(new Uint8Array(65536)).map((_, i) => i % 251);
    const big = new Uint8Array(5 * 1024 * 1024);
    for (let i = 0; i < big.length; i += body.length) big.set(body.subarray(0, big.length - i), i);
    big[big.length - 1] = 7;
    assert.deepStrictEqual((await h(new Request(`${ch.url}/w`, { method: "POST", body: big }))).status, 200);
    const got = await poll(h, ch.id, ch.token);
    assert.deepStrictEqual(Uint8Array.fromBase64(got.events[0]!.body), big);
  });
});

Deno.test("hub: a wrong token and a wrong admin token are refused", async () => {
  await withHub(async (h) => {
    const ch = await create(h);
    const r = await h(
      new Request(`http://hub/api/channels/${ch.id}/events?wait=0`, {
        headers: { authorization: "Bearer htk_wrong" },
      }),
    );
    assert.deepStrictEqual(r.status, 401);
    assert.ok((await r.text()).includes("Token refused"));
    const a = await h(
      new Request("http://hub/api/channels", { method: "POST", headers: { authorization: "Bearer x" } }),
    );
    assert.deepStrictEqual(a.status, 401);
    await a.body?.cancel();
  });
});

Deno.test("hub: 10 concurrent senders: every event gets its own sequence number, none skipped", async () => {
  await withHub(async (h) => {
    const ch = await create(h);
    await Promise.all(Array.from({ length: 10 }, async (_, s) => {
      for (let i = 0; i < 30; i++) {
        const r = await h(new Request(`${ch.url}/w`, { method: "POST", body: `${s}-${i}` }));
        assert.deepStrictEqual(r.status, 200);
        await r.body?.cancel();
      }
    }));
    const seen: string[] = [];
    let after = 0;
    for (;;) {
      const got = await poll(h, ch.id, ch.token, after);
      if (got.events.length === 0) break;
      for (const e of got.events) {
        assert.deepStrictEqual(e.seq, after + 1);
        after = e.seq;
        seen.push(new TextDecoder().decode(Uint8Array.fromBase64(e.body)));
      }
    }
    assert.deepStrictEqual(seen.length, 300);
    assert.deepStrictEqual(new Set(seen).size, 300);
  });
});

Deno.test("hub: two stores on one KV file (two processes) never give out the same sequence number", async () => {
  await withHub(async (h, path) => {
    const ch = await create(h);
    const kv2 = await Deno.openKv(path);
    const other = createHubHandler({ store: hubStoreOn(kv2) });
    try {
      await Promise.all([h, other].flatMap((x) =>
        Array.from({ length: 20 }, async (_, i) => {
          const r = await x(new Request(`${ch.url}/w`, { method: "POST", body: String(i) }));
          assert.deepStrictEqual(r.status, 200);
          await r.body?.cancel();
        })
      ));
      const got = await poll(h, ch.id, ch.token);
      assert.deepStrictEqual(got.events.map((e) => e.seq), Array.from({ length: 40 }, (_, i) => i + 1));
    } finally {
      other.close();
      kv2.close();
    }
  });
});

Deno.test("hub: channel URLs are built on the public URL; without an admin token the admin API is off", async () => {
  const dir = await Deno.makeTempDir();
  const kv = await Deno.openKv(`${dir}/hub.sqlite`);
  try {
    const withUrl = createHubHandler({
      store: hubStoreOn(kv),
      adminToken: "a",
      publicUrl: "https://hub.example.com/",
    });
    const r = await withUrl(
      new Request("http://127.0.0.1:8788/api/channels", {
        method: "POST",
        headers: { authorization: "Bearer a" },
      }),
    );
    assert.match((await r.json()).url, /^https:\/\/hub\.example\.com\/c\/[A-Za-z0-9_-]{22}$/);
    const off = createHubHandler({ store: hubStoreOn(kv) });
    const refused = await off(
      new Request("http://hub/api/channels", { method: "POST", headers: { authorization: "Bearer a" } }),
    );
    assert.equal(refused.status, 403);
    assert.match(await refused.text(), /admin API is off/);
    withUrl.close();
    off.close();
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
