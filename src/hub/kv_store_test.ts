import assert from "node:assert/strict";
import { ChannelFullError, hubStoreOn } from "./kv_store.ts";
import { storedBytes, usage } from "./team.ts";

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

Deno.test("hub store: the storage cap holds for two hub processes appending concurrently to one KV file", async () => {
  const dir = await Deno.makeTempDir();
  // Two handles on one SQLite file: two hub processes (each with its own in-process state).
  const kvA = await Deno.openKv(`${dir}/hub.sqlite`);
  const kvB = await Deno.openKv(`${dir}/hub.sqlite`);
  try {
    const a = hubStoreOn(kvA);
    const b = hubStoreOn(kvB);
    await a.createChannel("c1", new Uint8Array(32));
    const cap = 100_000;
    const event = (i: number) => ({
      receivedAt: new Date().toISOString(),
      method: "POST",
      path: "/webhook",
      query: "",
      headers: [] as [string, string][],
      remoteAddr: "127.0.0.1",
      size: 9000,
      body: new Uint8Array(9000).fill(i),
    });
    const results = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).append("c1", event(i), { maxChannelBytes: cap })),
    );
    const stored = results.filter((r) => r.status === "fulfilled");
    const refused = results.filter((r) => r.status === "rejected");
    assert.ok(refused.every((r) => r.reason instanceof ChannelFullError), "refused as full, nothing else");
    const events = await a.read("c1", 0);
    assert.equal(events.length, stored.length, "every append that resolved is stored, nothing else");
    const bytes = events.reduce((n, e) => n + storedBytes(e), 0);
    assert.ok(bytes <= cap, `stored ${bytes} bytes under a cap of ${cap}`);
    assert.equal(await usage(kvA, "c1"), bytes, "the usage counter is exact");
    assert.ok(stored.length >= 10, `the cap is used, not refused early (${stored.length} stored)`);
  } finally {
    kvA.close();
    kvB.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("hub store: an event refused by the cap leaves no body chunks behind", async () => {
  const dir = await Deno.makeTempDir();
  const kv = await Deno.openKv(`${dir}/hub.sqlite`);
  try {
    const store = hubStoreOn(kv);
    await store.createChannel("c1", new Uint8Array(32));
    const big = new Uint8Array(200_000);
    await assert.rejects(
      store.append("c1", {
        receivedAt: new Date().toISOString(),
        method: "POST",
        path: "/",
        query: "",
        headers: [],
        remoteAddr: "",
        size: big.length,
        body: big,
      }, { maxChannelBytes: 100_000 }),
      ChannelFullError,
    );
    await new Promise((r) => setTimeout(r, 100)); // the chunks are deleted right after the refusal
    let chunks = 0;
    for await (const _ of kv.list({ prefix: ["hub", "chunk", "c1"] })) chunks++;
    assert.equal(chunks, 0);
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});

/**
 * Code that names a hub KV key (a key of the schema, or one built from a variable) or calls the KV: only
 * src/hub/kv_store.ts may (comment lines aside); in src/hub/, any `["hub", …]` at all.
 */
const KV_USE = [
  /\[\s*"hub"\s*,\s*("(channel|channels|head|event|chunk|cursor|low|usage|refused)"|[A-Za-z_]\w*\s*[,\]])/,
  /\bkv\w*\.(get|getMany|set|list|atomic|delete|enqueue|listenQueue|watch)\s*[<(]/,
  /\.atomic\(\)/,
  /\bDeno\.openKv\s*\(/,
];

async function kvUses(path: string): Promise<string[]> {
  const uses = path.includes("/src/hub/") ? [...KV_USE, /\[\s*"hub"\s*,/] : KV_USE;
  const out: string[] = [];
  const lines = (await Deno.readTextFile(path)).split("\n");
  lines.forEach((line, i) => {
    const code = line.trim();
    if (code.startsWith("*") || code.startsWith("/*") || code.startsWith("//")) return;
    if (uses.some((re) => re.test(code))) out.push(`${path}:${i + 1}: ${code}`);
  });
  return out;
}

Deno.test("hub store: only src/hub/kv_store.ts names a KV key or calls the KV (the rest goes through HubStore)", async () => {
  const src = new URL("../", import.meta.url);
  const own = new URL("./kv_store.ts", import.meta.url).pathname;
  // A test of the test: the scan sees the owner's own keys and calls.
  assert.ok((await kvUses(own)).length > 20, "the scan finds kv_store.ts's keys");
  const offenders: string[] = [];
  const walk = async (dir: URL) => {
    for await (const entry of Deno.readDir(dir)) {
      const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
      if (entry.isDirectory) await walk(url);
      else if (entry.name.endsWith(".ts") && !entry.name.endsWith("_test.ts") && url.pathname !== own) {
        offenders.push(...await kvUses(url.pathname));
      }
    }
  };
  await walk(src);
  assert.deepEqual(offenders, [], "move these behind a named HubStore method in src/hub/kv_store.ts");
});
