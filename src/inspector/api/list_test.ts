import assert from "node:assert/strict";
import { logText, makeEvents, tempStore } from "../../../tests/_store_fixture.ts";
import { openStoreReader } from "../../store/read/reader.ts";
import { FilterError, parseFilter } from "./_filter.ts";
import { deliveryIndex } from "./deliveries.ts";
import { listPage } from "./list.ts";

Deno.test("listPage() stops at its byte budget and hands back a cursor that finds the rest", async () => {
  const events = makeEvents(200, { endpoints: ["a", "b", "c", "d"] });
  await using store = await tempStore(logText(events));
  using reader = (await openStoreReader(store))!;
  const deliveries = deliveryIndex(store);
  const filter = parseFilter(new URLSearchParams("endpoint=d&method=POST"));
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
    events.filter((e) => e.endpoint === "d" && e.method === "POST").map((e) => e.id).reverse(),
  );
});

Deno.test("parseFilter() refuses a bad time or delivery status, naming the parameter", () => {
  assert.throws(
    () => parseFilter(new URLSearchParams("since=soon")),
    (e) => e instanceof FilterError && /since must be an ISO 8601 time/.test(e.message),
  );
  assert.throws(
    () => parseFilter(new URLSearchParams("delivery=lost")),
    (e) => e instanceof FilterError && /delivery must be one of/.test(e.message),
  );
  assert.deepEqual(parseFilter(new URLSearchParams("method=post&q=&endpoint=%20")), { method: "POST" });
});
