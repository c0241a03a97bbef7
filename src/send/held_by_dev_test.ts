import assert from "node:assert/strict";
import { at, attempt, eventIdAt } from "../../tests/_delivery_fixture.ts";
import { buildEvent, type CapturedEvent } from "../event/record.ts";
import { storePaths } from "../store/paths.ts";
import { heldByDev } from "./held_by_dev.ts";

/** An event marked for targets `a` and `b`, received `minutes` after the fixtures' start. */
function twoTargets(minutes: number): CapturedEvent {
  return {
    ...buildEvent({
      id: eventIdAt(minutes),
      endpoint: "github",
      receivedAt: at(minutes),
      method: "POST",
      path: "/gh",
      query: "",
      headers: [],
      body: new TextEncoder().encode("{}"),
      remoteAddr: "127.0.0.1",
    }),
    forward: { to: "http://127.0.0.1:3000/a", mode: "queue", targets: ["a", "b"] },
  };
}

Deno.test("heldByDev: an event one target of which gave up while the other still waits is the running dev's", async () => {
  const dir = await Deno.makeTempDir({ prefix: "hooktap_held_" });
  try {
    const paths = storePaths(`${dir}/.hooktap`);
    await Deno.mkdir(paths.dir);
    const mixed = twoTargets(1); // a: every attempt failed; b: never answered yet (dev still has it)
    const done = twoTargets(2); // a: failed; b: delivered: nothing left for dev
    const waiting = twoTargets(3); // a: retrying; b: delivered
    const records = [
      attempt(mixed.id, 1, { target: "a", outcome: "failed", status: 500 }),
      attempt(done.id, 2, { target: "a", outcome: "failed", status: 500 }),
      attempt(done.id, 2, { target: "b" }),
      attempt(waiting.id, 3, { target: "a", outcome: "retrying", status: 503 }),
      attempt(waiting.id, 3, { target: "b" }),
    ];
    await Deno.writeTextFile(paths.deliveries, records.map((r) => JSON.stringify(r) + "\n").join(""));
    const events = [mixed, done, waiting];
    await Deno.writeTextFile(paths.lock, JSON.stringify({ pid: 4242, port: 8999 }));
    assert.equal(await heldByDev(paths, events), undefined, "no dev holds the lock: nothing is held");
    // A dev holds the writer lock (here this test, through a file of its own: the probe cannot take it).
    using lock = await Deno.open(paths.lock, { read: true, write: true });
    await lock.lock(true);
    const held = await heldByDev(paths, events);
    assert.deepEqual(held, { ids: new Set([mixed.id, waiting.id]), pid: 4242, kept: new Map() });
    // A dev whose lock names its targets holds only what waits for one of them: target `a` was removed.
    await Deno.writeTextFile(
      paths.lock,
      JSON.stringify({ pid: 4242, port: 8999, targets: { github: ["b"] } }),
    );
    assert.deepEqual(await heldByDev(paths, events), {
      ids: new Set([mixed.id]),
      pid: 4242,
      kept: new Map([["github a", { endpoint: "github", target: "a", ids: [waiting.id] }]]),
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
