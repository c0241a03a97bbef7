import assert from "node:assert/strict";
import type { DeliveryRecord } from "../event/delivery.ts";
import { createColors } from "./colors.ts";
import { eventDelivery } from "../send/delivery_state.ts";
import { deliveryCell, renderDeliveries, renderTargets, targetsCell } from "./delivery_view.ts";

const plain = createColors(false);

function attempt(n: number, status: number | undefined, outcome: DeliveryRecord["outcome"]): DeliveryRecord {
  return {
    event: "evt_20240501_01HWSP3MM06FBZC4W1PNMV4KMH",
    attempt: n,
    source: "forward",
    method: "POST",
    v: 2,
    target: "localhost:3000/hook",
    url: "http://localhost:3000/hook",
    endpoint: "default",
    startedAt: "2024-05-01T10:00:00.000Z",
    durationMs: 3,
    outcome,
    ...(status === undefined ? { error: "nothing listens" } : { status }),
  } as DeliveryRecord; // deliveries log v2: target is the name, url the URL
}

const MARK = { to: "http://localhost:3000/hook", mode: "queue" as const };
const EVENT = { forward: MARK, query: "" };

Deno.test("the logs cell counts attempts as tries, not as repeats of the status", () => {
  const tries = [1, 2, 3, 4].map((n) => attempt(n, 500, "retrying"));
  assert.equal(
    deliveryCell(eventDelivery(EVENT, [...tries, attempt(5, 200, "delivered")]), MARK),
    "→ 200 (5 tries)",
  );
  assert.equal(deliveryCell(eventDelivery(EVENT, [attempt(1, 200, "delivered")]), MARK), "→ 200");
  assert.equal(deliveryCell(eventDelivery(EVENT, tries.slice(0, 2)), MARK), "→ 500 (2 tries) …");
  assert.equal(deliveryCell(eventDelivery(EVENT, []), MARK), "→ pending");
  assert.equal(deliveryCell(eventDelivery({ query: "" }, []), undefined), "-");
});

Deno.test("a replay to the forward target counts apart from dev's tries: never read as a retry", () => {
  const replay = (n: number, status: number, outcome: DeliveryRecord["outcome"]) =>
    ({ ...attempt(n, status, outcome), source: "replay" }) as DeliveryRecord;
  // Delivered at once, then replayed by hand: one try, one replay (it used to read "200 (2 tries)").
  const again = eventDelivery(EVENT, [attempt(1, 200, "delivered"), replay(1, 200, "delivered")]);
  assert.equal(deliveryCell(again, MARK), "→ 200 (1 try, 1 replay)");
  assert.equal(again.targets[0]!.attempts, 2);
  assert.match(
    renderTargets(again.targets, plain),
    /localhost:3000\/hook: delivered \(200, 1 attempt, 1 replay\)/,
  );
  // Given up after three tries, then delivered by a replay.
  const failed = [1, 2].map((n) => attempt(n, 500, "retrying"));
  const rescued = eventDelivery(EVENT, [...failed, attempt(3, 500, "failed"), replay(1, 200, "delivered")]);
  assert.equal(deliveryCell(rescued, MARK), "→ 200 (3 tries, 1 replay)");
  // Only replays: dev never sent it.
  const byHand = eventDelivery(EVENT, [replay(1, 502, "failed"), replay(2, 200, "delivered")]);
  assert.equal(deliveryCell(byHand, MARK), "→ 200 (2 replays)");
  assert.match(renderTargets(byHand.targets, plain), /\(200, 2 replays\)/);
  // Several targets: the same count in each target's cell.
  assert.equal(targetsCell(again.targets), "localhost:3000/hook → 200 (1 try, 1 replay)");
});

Deno.test("a failed send to another URL is its own delivery: the forward target's cell stays 200", () => {
  const other = {
    ...attempt(1, undefined, "failed"),
    source: "replay",
    target: "localhost:3999/oops",
    url: "http://localhost:3999/oops",
  } as const;
  const d = eventDelivery(EVENT, [attempt(1, 200, "delivered"), other]);
  assert.equal(deliveryCell(d, MARK), "→ 200");
  assert.equal(d.state, "delivered");
  assert.deepEqual(d.others, [{ name: "localhost:3999/oops", outcome: "failed", attempts: 1, replays: 1 }]);
});

Deno.test("inspect's Deliveries section starts after a blank line", () => {
  const text = renderDeliveries([attempt(1, 200, "delivered")], plain);
  assert.match(text, /^\nDeliveries \(1\)\n/);
  assert.equal(renderDeliveries([], plain), "");
});

Deno.test("a try nothing listened to reads as a wait for the app, not an error or an attempt", () => {
  const refused = { ...attempt(1, undefined, "retrying"), refused: true } as DeliveryRecord;
  assert.equal(deliveryCell(eventDelivery(EVENT, [refused]), MARK), "→ waiting for the app");
  assert.equal(
    deliveryCell(eventDelivery(EVENT, [attempt(1, 500, "retrying"), refused]), MARK),
    "→ 500 … waiting for the app",
  );
  const text = renderDeliveries([refused], plain);
  assert.match(
    text,
    /- nothing listened {2}POST http:\/\/localhost:3000\/hook {2}forward, .*no attempt spent/,
  );
  assert.doesNotMatch(text, /#1|no answer/);
});
