import assert from "node:assert/strict";
import { join } from "node:path";
import { buildEvent } from "../event/record.ts";
import { mayHaveBeenInFlight, openAttemptStarts, readUnrecorded } from "./attempt_starts.ts";

const event = (id: string) =>
  buildEvent({
    id,
    endpoint: "hook",
    receivedAt: new Date(),
    method: "POST",
    path: "/hook",
    query: "",
    headers: [],
    body: new TextEncoder().encode("{}"),
    remoteAddr: "127.0.0.1",
  });

const A = "evt_20260101_01J00000000000000000000AAA";
const B = "evt_20260101_01J00000000000000000000BBB";
const C = "evt_20260101_01J00000000000000000000CCC";

Deno.test("an attempt started and never recorded is in flight; one recorded is not; another run's file tells nothing", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "forward_starts.jsonl");
    const deliveries = join(dir, "deliveries.jsonl");
    await Deno.writeTextFile(deliveries, '{"v":2,"id":"dlv_20260101_OLD","event":"x"}\n');
    const starts = await openAttemptStarts(path, (await Deno.stat(deliveries)).size, {
      events: new Set([C]),
    });
    assert.ok(starts.note("dlv_20260101_A1", event(A), "app"));
    assert.ok(starts.note("dlv_20260101_B1", event(B), "app"));
    starts.close();
    // A's attempt was recorded; B's was in flight when the run ended.
    await Deno.writeTextFile(deliveries, '{"v":2,"id":"dlv_20260101_A1","event":"' + A + '"}\n', {
      append: true,
    });
    const known = await readUnrecorded(path, starts.token, deliveries);
    assert.deepEqual([...known!.events].sort(), [B, C]);
    assert.equal(await readUnrecorded(path, "another run", deliveries), undefined);
    assert.equal(await readUnrecorded(path, undefined, deliveries), undefined);
    // A new run empties it: only what it carries stays, a `through` included.
    const next = await openAttemptStarts(path, 0, { events: new Set([B]), through: A });
    next.close();
    const carried = (await readUnrecorded(path, next.token, deliveries))!;
    assert.deepEqual([...carried.events], [B]);
    assert.deepEqual([A, B, C].map((id) => mayHaveBeenInFlight(carried, id)), [true, true, false]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("once every attempt noted is recorded, the file is cut back to its head and what it carries", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "forward_starts.jsonl");
    const deliveries = join(dir, "deliveries.jsonl");
    const starts = await openAttemptStarts(path, 0, { events: new Set([C]) });
    const head = (await Deno.stat(path)).size;
    starts.note("dlv_20260101_A1", event(A), "app");
    starts.note("dlv_20260101_B1", event(B), "app");
    starts.recorded("dlv_20260101_A1");
    assert.ok((await Deno.stat(path)).size > head, "B is still in flight: its line stays");
    starts.recorded("dlv_20260101_B1");
    assert.equal((await Deno.stat(path)).size, head);
    starts.note("dlv_20260101_A2", event(A), "app"); // in flight when the run ends
    starts.close();
    const known = await readUnrecorded(path, starts.token, deliveries);
    assert.deepEqual([...known!.events].sort(), [A, C]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
