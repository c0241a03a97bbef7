import assert from "node:assert/strict";
import { join } from "node:path";
import { buildEvent } from "../../event/record.ts";
import { StoreError } from "../../errors.ts";
import { storePaths } from "../paths.ts";
import { openStoreForWriting } from "./open.ts";

function event(i: number) {
  return buildEvent({
    id: `evt_20260101_${String(i).padStart(26, "0")}`,
    endpoint: "default",
    receivedAt: new Date(0),
    method: "POST",
    path: "/webhook",
    query: "",
    headers: [],
    body: new TextEncoder().encode(`body ${i}`),
    remoteAddr: "127.0.0.1",
  });
}

Deno.test("openStoreForWriting: one writer at a time; disposing closes the log, writes the index, releases the lock", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const paths = storePaths(join(dir, ".hooktap"));
    {
      await using store = await openStoreForWriting(paths);
      await store.describe({ pid: Deno.pid, startedAt: new Date(0).toISOString() });
      await store.writer.append(event(1));
      await store.writer.append(event(2));
      assert.equal(store.writer.count, 2);
      // A second writer is refused while this one holds the lock, and leaves nothing open behind it.
      await assert.rejects(() => openStoreForWriting(paths), StoreError);
      const unmatched = await store.openUnmatched();
      unmatched.add({ time: new Date(0).toISOString(), method: "GET", path: "/x", query: "", status: 404 });
      await unmatched[Symbol.asyncDispose]();
      await (await store.startControl())[Symbol.asyncDispose]();
    }
    const index = JSON.parse(await Deno.readTextFile(paths.index)) as { latest: Record<string, string> };
    assert.equal(index.latest.default, event(2).id);
    assert.match(await Deno.readTextFile(paths.unmatched), /"path":"\/x"/);
    // Released: the next writer opens it (the deno test sanitizers check that nothing stayed open).
    await using again = await openStoreForWriting(paths);
    assert.equal(again.writer.count, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("openStoreForWriting: disposing twice closes once", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const store = await openStoreForWriting(storePaths(join(dir, ".hooktap")));
    const first = store[Symbol.asyncDispose]();
    assert.equal(store[Symbol.asyncDispose](), first);
    await first;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
