import assert from "node:assert/strict";
import { readIndex } from "../index_file.ts";
import { keepIndex } from "./index_keeper.ts";
import { openEventWriter } from "./writer.ts";
import { logText, makeEvents, tempStore } from "../../../tests/_store_fixture.ts";

Deno.test("keepIndex() rebuilds the index of an existing log, adds new appends, and writes it at close", async () => {
  const old = makeEvents(300, { endpoints: ["a", "b"] });
  await using store = await tempStore(logText(old));
  const writer = await openEventWriter(store, { sync: false });
  const keeper = keepIndex(store, writer, { intervalMs: 10 });
  const fresh = makeEvents(1, { endpoints: ["b"], start: new Date("2024-06-01T00:00:00Z") })[0]!;
  await writer.append(fresh);
  await writer.close();
  await keeper.close();
  using file = await Deno.open(store.events);
  const size = (await file.stat()).size;
  assert.deepEqual(await readIndex(store, file, size), {
    v: 1,
    size,
    latest: { a: old.at(-2)!.id, b: fresh.id },
  });
});

Deno.test("keepIndex() writes while running, at most once per interval, only when the log grew", async () => {
  await using store = await tempStore("");
  const writer = await openEventWriter(store, { sync: false });
  const keeper = keepIndex(store, writer, { intervalMs: 20 });
  const [e] = makeEvents(1, { endpoints: ["x"] });
  await writer.append(e!);
  await new Promise((r) => setTimeout(r, 120));
  const during = JSON.parse(await Deno.readTextFile(store.index));
  assert.deepEqual(during.latest, { x: e!.id });
  const stat = await Deno.stat(store.index);
  await new Promise((r) => setTimeout(r, 80));
  assert.deepEqual((await Deno.stat(store.index)).mtime, stat.mtime, "no rewrite without new events");
  await writer.close();
  await keeper.close();
});
