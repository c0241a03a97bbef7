import assert from "node:assert/strict";
import { allDeliveries, byEvent } from "../../tests/_delivery_fixture.ts";
import { writeDeliveryHistory } from "../../tests/_delivery_history.ts";
import { parseEventLine } from "../event/record.ts";
import { eventDelivery } from "../send/delivery_state.ts";
import { findUndelivered } from "../send/undelivered.ts";
import { storePaths } from "../store/paths.ts";
import { undeliveredIds } from "./undelivered.ts";

Deno.test("undeliveredIds(): the events replay --undelivered finds, and the whole log's, on a month of history", async () => {
  const dir = await Deno.makeTempDir({ prefix: "hooktap_undelivered_" });
  try {
    const { paths } = await writeDeliveryHistory(dir, { events: 3000, spacingMs: 15 * 60_000 });
    const got = await undeliveredIds(paths);
    const found = await findUndelivered(paths);
    assert.deepEqual([...got].sort(), [...found.pending, ...found.failed].map((e) => e.id).sort());
    const all = byEvent(await allDeliveries(paths.deliveries));
    const events = (await Deno.readTextFile(paths.events)).split("\n").filter((l) => l !== "")
      .map((l) => parseEventLine(l)!);
    const want = events.filter((e) => {
      const d = eventDelivery(e, all.get(e.id));
      return d.state !== "none" && d.state !== "delivered";
    });
    assert.deepEqual([...got].sort(), want.map((e) => e.id).sort());
    assert.ok(got.size > 300, `${got.size} undelivered`);
    assert.deepEqual(await undeliveredIds(storePaths(`${dir}/none`)), new Set());
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
