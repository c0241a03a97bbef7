import assert from "node:assert/strict";
import { hubStoreOn } from "./kv_store.ts";

Deno.test("hub store: a small body that is a view into a large buffer (a server's read buffer) is stored", async () => {
  const dir = await Deno.makeTempDir();
  const kv = await Deno.openKv(`${dir}/hub.sqlite`);
  try {
    const store = hubStoreOn(kv);
    await store.createChannel("c1", new Uint8Array(32));
    const buffer = new Uint8Array(128 * 1024).fill(0x78);
    const body = buffer.subarray(1000, 1100);
    const seq = await store.append("c1", {
      receivedAt: new Date().toISOString(),
      method: "POST",
      path: "/webhook",
      query: "",
      headers: [["content-type", "text/plain"]],
      remoteAddr: "127.0.0.1",
      size: body.length,
      body,
    });
    assert.equal(seq, 1);
    const [event] = await store.read("c1", 0);
    assert.deepEqual(await store.body("c1", event!), body.slice());
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
