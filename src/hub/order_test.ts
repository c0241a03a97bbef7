/** The hub's order keeper: appends and outcomes in the hub's order within a batch. */
import assert from "node:assert/strict";
import { createHubOrder } from "./order.ts";

type Outcome = { path: string; hubSeq?: number };

Deno.test("hub order: a batch's outcomes are given in its order, whatever order they come in", () => {
  const order = createHubOrder();
  const given: string[] = [];
  const give = order.inOrder((o: Outcome) => given.push(o.path));
  order.reset(26);
  // 32..34 (404s) answer first, 27..31 (stored) after; 29 was already stored (no outcome, handled only).
  for (const seq of [32, 33, 34]) give({ path: `404 ${seq}`, hubSeq: seq });
  assert.deepEqual(given, []);
  give({ path: "direct" }); // not from the hub: at once
  assert.deepEqual(given, ["direct"]);
  give({ path: "200 27", hubSeq: 27 });
  give({ path: "200 28", hubSeq: 28 });
  assert.deepEqual(given, ["direct", "200 27", "200 28"]);
  order.handled(29);
  give({ path: "200 31", hubSeq: 31 });
  give({ path: "200 30", hubSeq: 30 });
  for (const seq of [27, 28, 30, 31, 32, 33, 34]) order.handled(seq);
  assert.deepEqual(given, ["direct", "200 27", "200 28", "200 30", "200 31", "404 32", "404 33", "404 34"]);
});

Deno.test("hub order: an event that failed with no outcome does not hold the later ones back", () => {
  const order = createHubOrder();
  const given: number[] = [];
  const give = order.inOrder((o: Outcome) => given.push(o.hubSeq!));
  order.reset(0);
  give({ path: "/b", hubSeq: 2 });
  order.handled(1); // its handler threw: no outcome
  assert.deepEqual(given, [2]);
  // A new batch from a cursor: what a batch left held is given at its reset, never lost.
  give({ path: "/d", hubSeq: 4 });
  order.reset(3);
  assert.deepEqual(given, [2, 4]);
});
