import assert from "node:assert/strict";
import { logText, makeEvents, tempStore } from "../../../tests/_store_fixture.ts";
import { deliveryIndex } from "../delivery_index.ts";
import { openStoreReader } from "../../store/read/reader.ts";
import { listPage } from "./list.ts";
import { filterFromQuery } from "./query.ts";

Deno.test("listPage() stops at its byte budget and hands back a cursor that finds the rest", async () => {
  const events = makeEvents(200, { endpoints: ["a", "b", "c", "d"] });
  await using store = await tempStore(logText(events));
  using reader = (await openStoreReader(store))!;
  const deliveries = deliveryIndex(store);
  const filter = filterFromQuery(new URLSearchParams("endpoint=d&method=PUT"));
  const found: string[] = [];
  let before: number | undefined;
  let pages = 0;
  do {
    const page = await listPage(reader, deliveries, {
      filter,
      budget: 2000,
      limit: 1000,
      ...(before ? { before } : {}),
    });
    assert.ok(page.scanned < 2000 + 400, `one page read ${page.scanned} bytes`);
    found.push(...page.events.map((e) => e.id));
    before = page.next ?? undefined;
    pages++;
  } while (before !== undefined);
  assert.ok(pages > 5);
  assert.deepEqual(
    found,
    events.filter((e) => e.endpoint === "d" && e.method === "PUT").map((e) => e.id).reverse(),
  );
});

Deno.test("listPage() pages by limit, each page going on before the last one's oldest event", async () => {
  const events = makeEvents(50);
  await using store = await tempStore(logText(events));
  using reader = (await openStoreReader(store))!;
  const deliveries = deliveryIndex(store);
  const filter = filterFromQuery(new URLSearchParams("q=PAD"));
  assert.deepEqual((await listPage(reader, deliveries, { filter })).events, []); // smart case: "pad" only
  const lower = filterFromQuery(new URLSearchParams("q=pad"));
  const first = await listPage(reader, deliveries, { filter: lower, limit: 20 });
  assert.equal(first.events.length, 20);
  const second = await listPage(reader, deliveries, { filter: lower, limit: 40, before: first.next! });
  assert.equal(second.next, null);
  assert.deepEqual(
    [...first.events, ...second.events].map((e) => e.id),
    events.map((e) => e.id).reverse(),
  );
});
