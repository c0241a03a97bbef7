import assert from "node:assert/strict";
import { type HubStore, hubStoreOn } from "../kv_store.ts";
import { createHubHandler } from "../server.ts";
import { hashToken } from "../token.ts";

const CHANNEL = "AAAAAAAAAAAAAAAAAAAAAA";
const TOKEN = "htk_test";
const HUB = "http://hub.test";

/** The store, with a count of the calls a refusal used to cost each (a trim, a usage read, a count write). */
function counted(store: HubStore): { store: HubStore; calls: () => number } {
  let calls = 0;
  const watched = new Set(["trim", "usage", "noteRefused"]);
  const proxy = new Proxy(store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof key === "string" && watched.has(key) && typeof value === "function") {
        return (...args: unknown[]) => {
          calls++;
          return value.apply(target, args);
        };
      }
      return value;
    },
  });
  return { store: proxy, calls: () => calls };
}

async function until(cond: () => Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await cond()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return await cond();
}

Deno.test("hub: a flood of senders to a full channel is refused without store work per request, every refusal is counted, and an ack makes room again", async () => {
  const dir = await Deno.makeTempDir();
  const kv = await Deno.openKv(`${dir}/hub.sqlite`);
  const { store, calls } = counted(hubStoreOn(kv));
  const handler = createHubHandler({ store, limits: { maxChannelBytes: 64 * 1024 } });
  try {
    await store.createChannel(CHANNEL, await hashToken(TOKEN));
    await store.touchClient(CHANNEL, "pin", { now: Date.now(), maxClients: 32 }); // it acks nothing yet
    const send = async () => {
      const r = await handler(
        new Request(`${HUB}/c/${CHANNEL}/x`, { method: "POST", body: "x".repeat(1000) }),
      );
      await r.body?.cancel();
      return r.status;
    };
    let stored = 0;
    while ((await send()) === 200) stored++;
    assert.ok(stored > 50 && stored < 66, `stored ${stored} of 1000 bytes each in 64 KiB`);
    const before = calls();
    let refused = 1;
    for (let round = 0; round < 10; round++) {
      const statuses = await Promise.all(Array.from({ length: 30 }, send));
      assert.ok(statuses.every((s) => s === 507), statuses.join());
      refused += statuses.length;
    }
    // Before: a forced trim, an exact usage read and a count write for each of the 300 (900 calls).
    assert.ok(calls() - before < 40, `${calls() - before} store calls for 300 refusals`);
    assert.ok(
      await until(async () => (await store.refused(CHANNEL))?.count === refused, 5000),
      `every refusal counted: ${(await store.refused(CHANNEL))?.count} of ${refused}`,
    );
    // The client takes everything: the channel has room again at once, not after the mark's second.
    const head = await store.head(CHANNEL);
    const ack = await handler(
      new Request(`${HUB}/api/channels/${CHANNEL}/ack?client=pin`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}` },
        body: JSON.stringify({ seq: head }),
      }),
    );
    assert.equal(ack.status, 200, await ack.text());
    assert.ok(await until(async () => (await send()) === 200, 3000), "stored again after the ack");
  } finally {
    handler.close();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("hub store: refusals counted by many writers at once are all counted", async () => {
  const dir = await Deno.makeTempDir();
  const kvA = await Deno.openKv(`${dir}/hub.sqlite`);
  const kvB = await Deno.openKv(`${dir}/hub.sqlite`);
  try {
    const a = hubStoreOn(kvA);
    const b = hubStoreOn(kvB);
    // As two hub processes each write their batch: one write at a time each, side by side.
    await Promise.all([a, b].map(async (store) => {
      for (let i = 0; i < 20; i++) await store.noteRefused(CHANNEL, Date.now(), 2);
    }));
    assert.equal((await a.refused(CHANNEL))?.count, 80);
  } finally {
    kvA.close();
    kvB.close();
    await Deno.remove(dir, { recursive: true });
  }
});
