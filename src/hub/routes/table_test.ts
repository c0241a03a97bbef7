import assert from "node:assert/strict";
import { hubStoreOn } from "../kv_store.ts";
import { createHubHandler, NO_CHANNEL } from "../server.ts";
import { matchRoute } from "./route.ts";
import { HUB_ROUTES } from "./table.ts";

async function withHub(fn: (h: ReturnType<typeof createHubHandler>) => Promise<void>) {
  const dir = await Deno.makeTempDir();
  const kv = await Deno.openKv(`${dir}/hub.sqlite`);
  const handler = createHubHandler({ store: hubStoreOn(kv), adminToken: "admin" });
  try {
    await fn(handler);
  } finally {
    handler.close();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
}

async function answer(h: ReturnType<typeof createHubHandler>, method: string, path: string) {
  const r = await h(new Request(`http://hub${path}`, { method, headers: { authorization: "Bearer admin" } }));
  return {
    status: r.status,
    allow: r.headers.get("allow"),
    type: r.headers.get("content-type"),
    body: await r.text(),
  };
}

Deno.test("hub routes: a path no route knows gets the very 404 of an unknown channel", async () => {
  await withHub(async (h) => {
    const unknownChannel = await answer(h, "POST", "/c/aaaaaaaaaaaaaaaaaaaaaaaa/webhook");
    assert.equal(unknownChannel.status, 404);
    assert.equal(unknownChannel.body, NO_CHANNEL + "\n");
    for (
      const [method, path] of [
        ["GET", "/nothing"],
        ["POST", "/api"],
        ["GET", "/api/channels/aaaaaaaaaaaaaaaaaaaaaaaa/nothing"],
        ["POST", "/api/channels/aaaaaaaaaaaaaaaaaaaaaaaa/token/renew"],
        ["GET", "/c"],
        ["GET", "/c/"],
      ]
    ) {
      assert.deepEqual(await answer(h, method!, path!), unknownChannel, `${method} ${path}`);
    }
  });
});

Deno.test("hub routes: a known path with another method gets 405 and Allow", async () => {
  await withHub(async (h) => {
    const id = "aaaaaaaaaaaaaaaaaaaaaaaa";
    const cases: [string, string, string][] = [
      ["GET", "/api/channels", "POST"],
      ["PUT", `/api/channels/${id}`, "DELETE, GET"],
      ["GET", `/api/channels/${id}/ack`, "POST"],
      ["POST", `/api/channels/${id}/events`, "GET"],
      ["POST", `/api/channels/${id}/clients`, "GET"],
      ["GET", `/api/channels/${id}/clients/dev`, "DELETE"],
      ["GET", `/api/channels/${id}/token/rotate`, "POST"],
      ["DELETE", "/", "GET"],
    ];
    for (const [method, path, allow] of cases) {
      const got = await answer(h, method, path);
      assert.equal(got.status, 405, `${method} ${path}`);
      assert.equal(got.allow, allow, `${method} ${path}`);
      assert.match(got.body, new RegExp(`^Use ${allow.split(", ")[0]} `), got.body);
    }
    assert.match((await answer(h, "GET", "/api/channels")).body, /^Use POST to create a channel\.\n$/);
  });
});

Deno.test("hub routes: receiving takes every method and keeps the path after the channel, percent-encoding kept", () => {
  for (const method of ["POST", "GET", "PUT", "PATCH", "DELETE", "HEAD"]) {
    const found = matchRoute(HUB_ROUTES, method, "/c/abc/hooks/a%2Fb/");
    assert.equal(found.kind, "found", method);
    if (found.kind === "found") assert.deepEqual(found.groups, { channel: "abc", rest: "/hooks/a%2Fb/" });
  }
  const bare = matchRoute(HUB_ROUTES, "POST", "/c/abc");
  assert.ok(bare.kind === "found" && bare.groups.rest === "" && bare.groups.channel === "abc");
});

Deno.test("hub routes: every entry is reachable (none hidden behind an earlier one)", () => {
  const samples: Record<string, string> = {
    ":channel": "abc",
    ":rest": "/x",
    ":op": "rotate",
    ":name": "dev",
    ":seq": "7",
  };
  for (const r of HUB_ROUTES) {
    const path = r.pattern.pathname
      .replace(/:(\w+)(\([^)]*\))?/g, (_, name: string) => samples[`:${name}`] ?? "x")
      .replace("{/}?", "");
    const found = matchRoute(HUB_ROUTES, r.method === "*" ? "POST" : r.method, path);
    assert.ok(found.kind === "found" && found.route === r, `${r.method} ${r.pattern.pathname} (${path})`);
  }
});

Deno.test("hub routes: a client whose name holds @ is removed by its URL-encoded name", async () => {
  await withHub(async (h) => {
    const created = await h(
      new Request("http://hub/api/channels", { method: "POST", headers: { authorization: "Bearer admin" } }),
    );
    const ch = await created.json() as { id: string; token: string };
    const hello = await h(
      new Request(`http://hub/api/channels/${ch.id}?client=ana@laptop&hello=1`, {
        headers: { authorization: `Bearer ${ch.token}` },
      }),
    );
    assert.equal(hello.status, 200);
    await hello.arrayBuffer();
    const path = `/api/channels/${ch.id}/clients/${encodeURIComponent("ana@laptop")}`;
    const removed = await answer(h, "DELETE", path);
    assert.equal(removed.status, 200, removed.body);
    assert.deepEqual(JSON.parse(removed.body), { ok: true, removed: "ana@laptop" });
    assert.equal((await answer(h, "DELETE", path)).status, 404);
  });
});
