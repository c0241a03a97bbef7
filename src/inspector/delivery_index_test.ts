import assert from "node:assert/strict";
import { allDeliveries, byEvent } from "../../tests/_delivery_fixture.ts";
import { APP, APP_URL, writeDeliveryHistory } from "../../tests/_delivery_history.ts";
import { DELIVERY_VERSION, type DeliveryRecord } from "../event/delivery.ts";
import { createIdFactory } from "../event/id.ts";
import { type CapturedEvent, parseEventLine } from "../event/record.ts";
import { eventDelivery } from "../send/delivery_state.ts";
import type { StorePaths } from "../store/paths.ts";
import { deliveryIndex, MARK_MARGIN_MS } from "./delivery_index.ts";

/** The store's events, oldest first. */
async function eventsOf(paths: StorePaths): Promise<CapturedEvent[]> {
  return (await Deno.readTextFile(paths.events)).split("\n").filter((l) => l !== "").map((l) =>
    parseEventLine(l)!
  );
}

/** The whole-log oracle: each event's summary from all its records, read the plain way. */
async function oracle(paths: StorePaths, events: readonly CapturedEvent[]) {
  const all = byEvent(await allDeliveries(paths.deliveries));
  return new Map(events.map((e) => [e.id, eventDelivery(e, all.get(e.id))]));
}

/** A record of `event` as `dev` or `replay` appends it, started at `at`. */
function record(event: CapturedEvent, at: number, o: Partial<DeliveryRecord>): string {
  const r: DeliveryRecord = {
    v: DELIVERY_VERSION,
    id: createIdFactory("dlv")(new Date(at)),
    event: event.id,
    endpoint: event.endpoint,
    source: "forward",
    target: APP,
    url: APP_URL,
    method: "POST",
    attempt: 9,
    startedAt: new Date(at).toISOString(),
    durationMs: 3,
    outcome: "delivered",
    status: 200,
    ...o,
  };
  return JSON.stringify(r) + "\n";
}

/** Pages of `size` events, newest first, as the list asks. */
function pages<T>(list: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let end = list.length; end > 0; end -= size) out.push(list.slice(Math.max(0, end - size), end));
  return out;
}

async function history(events: number) {
  const dir = await Deno.makeTempDir({ prefix: "hooktap_index_" });
  // A month: a page's events are read from the log's end back to a day before them, not the whole log.
  const h = await writeDeliveryHistory(dir, { events, spacingMs: 15 * 60_000 });
  return {
    ...h,
    dir,
    async [Symbol.asyncDispose]() {
      await Deno.remove(dir, { recursive: true });
    },
  };
}

Deno.test("every page's states equal the whole log's, with at most a quarter over `capacity` summaries kept", async () => {
  await using h = await history(3000);
  const events = await eventsOf(h.paths);
  const want = await oracle(h.paths, events);
  assert.ok(h.attempts > 6000, `${h.attempts} attempts`);
  const index = deliveryIndex(h.paths, { capacity: 250 });
  await index.refresh();
  const seen = new Set<string>();
  for (const page of pages(events, 100)) {
    const got = await index.deliveriesOf(page, { keep: true });
    for (const e of page) assert.deepEqual(got.get(e.id), want.get(e.id), e.id);
    for (const e of page) seen.add(want.get(e.id)!.state);
    assert.ok(index.kept <= 250 * 1.25, `${index.kept} kept`);
  }
  assert.deepEqual([...seen].sort(), ["delivered", "failed", "none", "pending", "retrying"]);
  // Not kept: read and dropped.
  const before = index.kept;
  const got = await index.deliveriesOf(events.slice(0, 500));
  for (const e of events.slice(0, 500)) assert.deepEqual(got.get(e.id), want.get(e.id));
  assert.equal(index.kept, before);
});

Deno.test("what the log appends is folded into kept summaries; a torn line waits; a pruned log starts over", async () => {
  await using h = await history(400);
  const events = await eventsOf(h.paths);
  const index = deliveryIndex(h.paths, { capacity: 100 });
  const newest = events.slice(-100);
  await index.deliveriesOf(newest, { keep: true }); // the first ask reads the log's size itself
  const old = events[3]!; // not kept: read again when asked
  const kept = newest.find((e) => e.forward !== undefined && e.forward.targets === undefined)!;
  const now = Date.now();
  const appended = [
    record(kept, now, { outcome: "failed", status: 500 }),
    record(kept, now + 1, { source: "replay", outcome: "delivered", status: 201 }),
    record(old, now + 2, { source: "replay", outcome: "delivered", status: 202 }),
    record(newest.at(-1)!, now + 3, { outcome: "retrying", status: 503 }),
  ];
  const torn = record(kept, now + 4, {
    source: "replay",
    outcome: "failed",
    target: "127.0.0.1:4000",
    url: "http://127.0.0.1:4000/x",
  });
  await Deno.writeTextFile(h.paths.deliveries, appended.join("") + torn.slice(0, 40), { append: true });
  await index.refresh();
  let want = await oracle(h.paths, events); // the oracle skips the torn line too
  let got = await index.deliveriesOf([...newest, old], { keep: true });
  for (const e of [...newest, old]) assert.deepEqual(got.get(e.id), want.get(e.id), e.id);
  assert.equal(got.get(old.id)!.state, "delivered");

  await Deno.writeTextFile(h.paths.deliveries, torn.slice(40), { append: true });
  await index.refresh();
  want = await oracle(h.paths, events);
  got = await index.deliveriesOf(newest, { keep: true });
  for (const e of newest) assert.deepEqual(got.get(e.id), want.get(e.id), e.id);
  assert.deepEqual(got.get(kept.id)!.others.map((o) => o.name), ["127.0.0.1:4000"]);

  // Pruned: the log keeps its last lines only.
  const lines = (await Deno.readTextFile(h.paths.deliveries)).split("\n").filter((l) => l !== "");
  await Deno.writeTextFile(h.paths.deliveries, lines.slice(-50).join("\n") + "\n");
  await index.refresh();
  want = await oracle(h.paths, events);
  got = await index.deliveriesOf(newest, { keep: true });
  for (const e of newest) assert.deepEqual(got.get(e.id), want.get(e.id), e.id);
});

Deno.test("an event that arrived after a refresh is read from that refresh's size on", async () => {
  await using h = await history(50);
  const events = await eventsOf(h.paths);
  let clock = Date.now();
  const index = deliveryIndex(h.paths, { now: () => clock });
  await index.refresh(); // a mark: (now, size)
  const arrival = new Date(clock + 11_000 + MARK_MARGIN_MS + 1000); // after the second mark
  const late = { ...events.at(-1)!, id: createIdFactory()(arrival), receivedAt: arrival.toISOString() };
  // A record of it before the mark cannot be (it arrived after): not read. The one after it is.
  const before = record(late, clock - 5000, { outcome: "failed", status: 599 });
  await Deno.writeTextFile(h.paths.deliveries, before, { append: true });
  clock += 11_000;
  await index.refresh(); // a second mark, past the first's spacing: its size holds `before`
  clock += MARK_MARGIN_MS + 2000;
  await Deno.writeTextFile(h.paths.deliveries, record(late, clock, { outcome: "retrying", status: 503 }), {
    append: true,
  });
  await index.refresh();
  const got = (await index.deliveriesOf([late], { keep: true })).get(late.id)!;
  assert.equal(got.state, "retrying");
  assert.equal(got.attempts, 1); // `before` was behind the mark
  // An event from before the marks is read a day back, as `logs` reads it.
  const old = events.at(-6)!;
  const want = await oracle(h.paths, [old]);
  assert.deepEqual((await index.deliveriesOf([old])).get(old.id), want.get(old.id));
});

Deno.test("a log replaced by a longer one, and a filter's pass begun before it: read again, as the whole log says", async () => {
  await using h = await history(600);
  const events = await eventsOf(h.paths);
  const index = deliveryIndex(h.paths, { capacity: 100 });
  const newest = events.slice(-100).reverse();
  await index.deliveriesOf(newest, { keep: true });
  const along = index.along("k");
  await along.deliveriesOf(events.slice(-300, -200).reverse(), () => false); // the first batch
  await along.deliveriesOf(events.slice(-400, -300).reverse(), () => false); // the pass begins
  // Replaced (removed, written again): other records, more bytes than before.
  const lines = (await Deno.readTextFile(h.paths.deliveries)).split("\n").filter((l) => l !== "");
  const extra = events.slice(-450).map((e, i) =>
    record(e, Date.now() + i, { outcome: "failed", status: 500 })
  );
  await Deno.remove(h.paths.deliveries);
  await Deno.writeTextFile(h.paths.deliveries, lines.slice(200).join("\n") + "\n" + extra.join(""));
  await index.refresh();
  const want = await oracle(h.paths, events);
  const got = await index.deliveriesOf(newest, { keep: true });
  for (const e of newest) assert.deepEqual(got.get(e.id), want.get(e.id), e.id);
  const older = events.slice(-500, -400).reverse();
  const next = await along.deliveriesOf(older, () => false);
  for (const e of older) assert.deepEqual(next.get(e.id), want.get(e.id), e.id);
});
