import assert from "node:assert/strict";
import { join } from "node:path";
import { allDeliveries, at, attempt as attemptOf, byEvent, T0 } from "../../tests/_delivery_fixture.ts";
import type { DeliveryRecord } from "../event/delivery.ts";
import { openDeliveriesLog } from "./deliveries_log.ts";
import { createIdFactory } from "../event/id.ts";
import {
  deliveriesAlong,
  factOf,
  parseDeliveryLine,
  parseFactLine,
  readDeliveriesOf,
  RECORD_LAG_MS,
  type RecordKeys,
  recordKeys,
} from "./deliveries_read.ts";

const newDelivery = (date: Date) => createIdFactory("dlv")(date);

/** An event of the store: its id and arrival, `minutes` after T0. */
function event(minutes: number) {
  return { id: createIdFactory("evt")(at(minutes)), receivedAt: at(minutes).toISOString() };
}

function attempt(e: { id: string }, minutes: number, o: Partial<DeliveryRecord> = {}): DeliveryRecord {
  return attemptOf(e.id, minutes, o);
}

/** What the whole-log reader (the oracle) has for `ids`. */
async function oracle(path: string, ids: readonly string[]) {
  const all = byEvent(await allDeliveries(path));
  return new Map(ids.filter((id) => all.has(id)).map((id) => [id, all.get(id)!]));
}

Deno.test("recordKeys() reads a record's event and start time in place, as the log writes them", () => {
  const e = event(0);
  const r = attempt(e, 3);
  const line = new TextEncoder().encode(`xx${JSON.stringify(r)}yy`);
  const keys: RecordKeys = { time: 0, eventTime: 0, eventAt: 0 };
  assert.equal(recordKeys(line, 2, line.length - 2, keys), true);
  assert.equal(keys.time, T0 + 3 * 60_000);
  assert.equal(keys.eventTime, T0);
  assert.equal(new TextDecoder().decode(line.subarray(keys.eventAt, keys.eventAt + 39)), e.id);
  // Another shape (a v1 line led by `event`, junk, a line cut short): parsed whole instead.
  for (
    const other of [`{"v":1,"event":"${e.id}","id":"${r.id}"}`, "not json", JSON.stringify(r).slice(0, 60)]
  ) {
    const bytes = new TextEncoder().encode(other);
    assert.equal(recordKeys(bytes, 0, bytes.length, keys), false, other);
  }
});

Deno.test("readDeliveriesOf(): the records of the events asked about, the same as the whole log's", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "deliveries.jsonl");
    const log = await openDeliveriesLog(path);
    const events = Array.from({ length: 40 }, (_, i) => event(i));
    const late = event(0.5);
    // Minute by minute: each event's first attempt, every third one retried; a replay of the first
    // event a day later (far past the margin from every other line's time, but after the event).
    for (const [i, e] of events.entries()) {
      if (i % 3 === 0) await log.append(attempt(e, i + 0.1, { outcome: "retrying", status: 503 }));
      await log.append(attempt(e, i + 0.2, { attempt: i % 3 === 0 ? 2 : 1 }));
    }
    // An attempt recorded late: it started (its id's time) before records written ahead of it.
    await log.append(attempt(late, 0.6, { durationMs: 30 * 60_000, outcome: "failed", error: "timeout" }));
    await log.append(attempt(events[0]!, 60 * 24 + 5, { source: "replay", target: "127.0.0.1:4000" }));
    await log.close();
    // A v1 line (its fields in another order) and junk: read whole; a torn last line: not a record yet.
    const v1 = {
      v: 1,
      event: events[5]!.id,
      id: newDelivery(new Date(T0 + 5.5 * 60_000)),
      endpoint: "github",
      source: "replay",
      target: "http://127.0.0.1:5000/x",
      method: "POST",
      attempt: 1,
      startedAt: new Date(T0 + 5.5 * 60_000).toISOString(),
      durationMs: 1,
      outcome: "delivered",
      status: 204,
    };
    const torn = JSON.stringify(attempt(events[7]!, 50)).slice(0, -5);
    await Deno.writeTextFile(path, `${JSON.stringify(v1)}\nnot a record\n${torn}`, { append: true });

    for (
      const ask of [
        [events[0]!],
        [events[39]!],
        [events[5]!, events[7]!],
        [late],
        events.slice(10, 30),
        [...events, late],
        [event(100)], // an event with no attempt
      ]
    ) {
      const ids = ask.map((e) => e.id);
      const expected = await oracle(path, ids);
      assert.deepEqual(await readDeliveriesOf(path, ask), expected, ids.join(","));
      // The same by reads that let a server's event loop run (the inspector inside dev).
      assert.deepEqual(
        await readDeliveriesOf(path, ask, { background: true }),
        expected,
        `${ids} (background)`,
      );
    }
    assert.equal((await readDeliveriesOf(path, [events[0]!])).get(events[0]!.id)?.length, 3);
    assert.deepEqual(await readDeliveriesOf(join(dir, "none.jsonl"), [events[0]!]), new Map());
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("readDeliveriesOf() stops at the records that started a day before the oldest event asked about", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "deliveries.jsonl");
    const log = await openDeliveriesLog(path);
    const e = event(0);
    const before = RECORD_LAG_MS / 60_000;
    // Impossible in a real log (an attempt before its event arrived), and so written here to show that the
    // read never went that far back: the first line is past the margin, the second one inside it.
    await log.append(attempt(e, -before - 60, { status: 599 }));
    await log.append(attempt(event(-before - 30), -before - 30));
    await log.append(attempt(e, -1, { status: 201 })); // a clock a minute behind: inside the margin
    // A hand-made id (its ULID's time is 1970): read whole, not taken for a record from before the event.
    await log.append({ ...attempt(event(5), 5), id: `dlv_${e.id.slice(4, 12)}_${"0".repeat(26)}` });
    await log.append(attempt(e, 1));
    await log.close();
    for (const background of [false, true]) {
      const found = (await readDeliveriesOf(path, [e], { background })).get(e.id)?.map((r) => r.status);
      assert.deepEqual(found, [201, 200], `background: ${background}`);
    }
    // The whole log has the first one too: the stop is what left it out.
    assert.deepEqual((await oracle(path, [e.id])).get(e.id)?.map((r) => r.status), [599, 201, 200]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("readDeliveriesOf(): background reads across lines longer than a read, within [start, end), as facts", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "deliveries.jsonl");
    const events = Array.from({ length: 30 }, (_, i) => event(i));
    const lines: string[] = [];
    for (let k = 0; k < 3000; k++) {
      const e = events[k % 30]!;
      // A few lines longer than a read (1 MiB): the buffer grows for them.
      const body = k % 1000 === 500 ? "b".repeat(1_500_000) : "x".repeat(k % 300);
      lines.push(
        JSON.stringify(attempt(e, (k % 30) + k / 10_000, { attempt: k, body, bodySize: body.length })),
      );
    }
    await Deno.writeTextFile(path, lines.join("\n") + "\n");
    const offsets = [0];
    for (const line of lines) offsets.push(offsets.at(-1)! + new TextEncoder().encode(line).length + 1);
    const all = byEvent(await allDeliveries(path));
    const ask = [events[0]!, events[3]!, events[29]!];
    const sync = await readDeliveriesOf(path, ask);
    assert.deepEqual(await readDeliveriesOf(path, ask, { background: true }), sync);
    for (const e of ask) assert.deepEqual(sync.get(e.id), all.get(e.id));
    // Only the lines in [start, end), kept as what `as` makes of them.
    const [from, to] = [700, 2600];
    const got = await readDeliveriesOf(path, ask, {
      background: true,
      start: offsets[from]!,
      end: offsets[to]!,
      as: (r) => r.attempt,
    });
    for (const e of ask) {
      const want = lines.slice(from, to).map((l) => JSON.parse(l)).filter((r) => r.event === e.id);
      assert.deepEqual(got.get(e.id), want.map((r) => r.attempt), e.id);
    }
    // A start inside a line: that line is not read.
    const inside = await readDeliveriesOf(path, [events[from % 30]!], {
      start: offsets[from]! + 5,
      end: offsets[to]!,
    });
    assert.ok(!inside.get(events[from % 30]!.id)?.some((r) => r.attempt === from));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("deliveriesAlong(): batch after batch, newest first, the records of each event as the whole log has them", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "deliveries.jsonl");
    const log = await openDeliveriesLog(path);
    // Hourly events over two and a half days (the pass stops a day before each batch and goes on later),
    // each tried once to three times; some replayed much later, one record with a hand-made id.
    const events = Array.from({ length: 60 }, (_, i) => event(i * 60));
    for (const [i, e] of events.entries()) {
      for (let k = 0; k <= i % 3; k++) {
        await log.append(
          attempt(e, i * 60 + k, { attempt: k + 1, outcome: k < i % 3 ? "retrying" : "delivered" }),
        );
      }
      if (i % 11 === 10) {
        await log.append(attempt(events[i - 10]!, i * 60 + 5, { source: "replay", status: 201 }));
      }
    }
    await log.append({
      ...attempt(events[20]!, 61 * 60),
      id: `dlv_${events[20]!.id.slice(4, 12)}_${"0".repeat(26)}`,
    });
    for (const e of events.slice(0, 6)) {
      await log.append(attempt(e, 62 * 60, { source: "replay", status: 202 }));
    }
    await log.close();
    await Deno.writeTextFile(path, JSON.stringify(attempt(events[59]!, 63 * 60)).slice(0, 50), {
      append: true,
    });
    const all = byEvent(await allDeliveries(path));
    const newest = [...events].reverse();
    for (const hold of [undefined, 4]) { // 4: too few to hold, the next batches read from the end
      const along = deliveriesAlong(path, hold === undefined ? {} : { hold });
      for (let i = 0; i < newest.length; i += 7) {
        const batch = newest.slice(i, i + 7);
        // An event of the last batch asked again, and one newer than the batches before (read on its own).
        if (i === 14) batch.push(newest[10]!, newest[2]!);
        const got = await along.next(batch);
        for (const e of batch) assert.deepEqual(got.get(e.id), all.get(e.id) ?? [], `${e.id}, hold ${hold}`);
      }
    }
    // As facts, up to a given end: what the log had there.
    const lines = (await Deno.readTextFile(path)).split("\n");
    const end = lines.slice(0, 100).join("\n").length + 1;
    const upTo = byEvent(lines.slice(0, 100).map((l) => JSON.parse(l)));
    const along = deliveriesAlong(path, { end, as: (r) => r.id });
    for (let i = 0; i < newest.length; i += 20) {
      const batch = newest.slice(i, i + 20);
      const got = await along.next(batch);
      for (const e of batch) assert.deepEqual(got.get(e.id), (upTo.get(e.id) ?? []).map((r) => r.id));
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("parseFactLine(): what the model reads of a record, from its start when it has an answer, else whole", () => {
  const e = event(0);
  const tricky = ',"headers":[["x","y"]],"outcome":"failed","status":599,"refused":true}';
  const lines = [
    attempt(e, 1), // an answer: parsed up to its headers
    attempt(e, 2, {
      outcome: "failed",
      status: 500,
      source: "replay",
      target: `t${tricky}`,
      url: `http://h/?q=${tricky}`,
    }),
    attempt(e, 3, { body: tricky, headers: [["x-note", tricky]] }),
    attempt(e, 4, { resumed: true, resigned: true, outcome: "retrying", status: 503 }),
    { ...attempt(e, 5), refused: true as const }, // never with an answer as dev writes it: read whole
  ].map((r) => JSON.stringify(r));
  // No answer (a refused try, an error), a record whose fields come in another order, a v1 line, junk.
  const { status: _s, statusText: _t, headers: _h, body: _b, bodyEncoding: _e, bodySize: _z, ...bare } =
    attempt(e, 6);
  lines.push(JSON.stringify({ ...bare, outcome: "retrying", error: "connection refused", refused: true }));
  const { outcome, status, ...rest } = attempt(e, 7, { outcome: "failed", status: 502 });
  lines.push(JSON.stringify({ ...rest, outcome, status })); // after the answer: read whole
  lines.push(JSON.stringify({ ...attempt(e, 8), v: 1, target: "http://127.0.0.1:3000/hook" }));
  lines.push("not json", "");
  for (const line of lines) {
    const whole = parseDeliveryLine(line);
    const got = parseFactLine(line);
    assert.deepEqual(got, whole && { event: whole.event, fact: factOf(whole) }, line.slice(0, 80));
  }
  assert.equal(parseFactLine(lines[4]!)?.fact.refused, true);
  assert.equal(parseFactLine(lines[6]!)?.fact.status, 502);
});
