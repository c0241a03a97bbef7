import assert from "node:assert/strict";
import type { DeliveryFact } from "./delivery_state.ts";
import { combined, eventDelivery } from "./delivery_state.ts";

const rec = (
  target: string,
  url: string,
  source: DeliveryFact["source"],
  outcome: DeliveryFact["outcome"],
  status?: number,
): DeliveryFact => ({ target, url, source, outcome, ...(status !== undefined ? { status } : {}) });

const PLAIN = { forward: { to: "http://localhost:3000/hook", mode: "queue" as const }, query: "" };

Deno.test("a plain target named otherwise: dev's attempts and a replay to its URL are its; another URL is not", () => {
  const d = eventDelivery(PLAIN, [
    rec("orders", "http://localhost:3000/hook", "forward", "retrying", 503),
    rec("localhost:3999/oops", "http://localhost:3999/oops", "replay", "failed"),
    rec("localhost:3000/hook", "http://localhost:3000/hook", "replay", "delivered", 200),
  ]);
  assert.equal(d.state, "delivered");
  assert.deepEqual(d.targets, [{
    name: "localhost:3000/hook",
    outcome: "delivered",
    status: 200,
    attempts: 2,
    replays: 1, // of the two, the replay to its URL: not a retry
  }]);
  assert.deepEqual(d.others, [{ name: "localhost:3999/oops", outcome: "failed", attempts: 1, replays: 1 }]);
  assert.equal(d.status, 200);
  assert.equal(d.attempts, 2);
});

Deno.test("a delivered target stays delivered after a later failed send to it; its status is the 2xx", () => {
  const d = eventDelivery(PLAIN, [
    rec("localhost:3000/hook", "http://localhost:3000/hook", "forward", "delivered", 200),
    rec("localhost:3000/hook", "http://localhost:3000/hook", "replay", "failed", 500),
  ]);
  assert.equal(d.state, "delivered");
  assert.equal(d.status, 200);
});

Deno.test("several targets: the event's state and no rule matched", () => {
  const mark = { to: "http://a/", mode: "queue" as const, targets: ["a", "b"] };
  const event = { forward: mark, query: "" };
  assert.equal(eventDelivery(event, []).state, "pending");
  assert.equal(eventDelivery(event, [rec("a", "http://a/", "forward", "delivered", 200)]).state, "pending");
  const both = [
    rec("a", "http://a/", "forward", "delivered", 200),
    rec("b", "http://b/", "forward", "failed", 500),
  ];
  assert.equal(eventDelivery(event, both).state, "failed");
  const retrying = [
    rec("a", "http://a/", "forward", "retrying", 500),
    rec("b", "http://b/", "forward", "delivered"),
  ];
  assert.equal(eventDelivery(event, retrying).state, "retrying");
  // With several targets only names count: a replay to a's URL under another name is a send elsewhere.
  const elsewhere = eventDelivery(event, [rec("a:80", "http://a/", "replay", "delivered", 200)]);
  assert.equal(elsewhere.state, "pending");
  assert.equal(elsewhere.others.length, 1);
  assert.equal(eventDelivery({ forward: { ...mark, targets: [] }, query: "" }, []).state, "none");
  assert.equal(eventDelivery({ query: "" }, [rec("x", "http://x/", "replay", "delivered")]).state, "none");
  assert.equal(combined([]), "none");
});

Deno.test("tries nothing listened to: the event waits (pending, then retrying after a real attempt), never an error", () => {
  const refused = (): DeliveryFact => ({
    ...rec("t", "http://localhost:3000/hook", "forward", "retrying"),
    refused: true,
  });
  const only = eventDelivery(PLAIN, [refused(), refused()]);
  assert.equal(only.state, "pending");
  assert.deepEqual(only.targets, [{
    name: "localhost:3000/hook",
    outcome: "pending",
    attempts: 0,
    waiting: true,
  }]);
  // A 503 earlier, then the app went away: still retrying, with the last real answer and one attempt.
  const after = eventDelivery(PLAIN, [
    rec("t", "http://localhost:3000/hook", "forward", "retrying", 503),
    refused(),
  ]);
  assert.deepEqual(after.targets, [{
    name: "localhost:3000/hook",
    outcome: "retrying",
    status: 503,
    attempts: 1,
    waiting: true,
  }]);
  // Once it listens and takes it: delivered, the wait forgotten.
  const done = eventDelivery(PLAIN, [
    refused(),
    rec("t", "http://localhost:3000/hook", "forward", "delivered", 200),
  ]);
  assert.deepEqual(done.targets, [{
    name: "localhost:3000/hook",
    outcome: "delivered",
    status: 200,
    attempts: 1,
  }]);
});

Deno.test("a replay that found nothing listening changes nothing of a forward target (no attempt, no replay)", () => {
  const hook = "http://localhost:3000/hook";
  const idle: DeliveryFact = { ...rec("localhost:3000/hook", hook, "replay", "failed"), refused: true };
  const wait: DeliveryFact = { ...rec("t", hook, "forward", "retrying"), refused: true };
  // Waiting for the app, then a replay while it is still down: still waiting, the next dev sends it.
  assert.deepEqual(eventDelivery(PLAIN, [wait, idle]), eventDelivery(PLAIN, [wait]));
  assert.deepEqual(eventDelivery(PLAIN, [wait, idle]).targets, [{
    name: "localhost:3000/hook",
    outcome: "pending",
    attempts: 0,
    waiting: true,
  }]);
  // After a real answer it stays as that answer left it (retrying on a 503), one attempt, no replay.
  const answered = rec("t", hook, "forward", "retrying", 503);
  assert.deepEqual(eventDelivery(PLAIN, [answered, idle]), eventDelivery(PLAIN, [answered]));
  // A replay that reached the app is an attempt and a replay, as before; a failed one gives nothing up for
  // dev, which still holds the event (it sends it once the app listens): pending, no longer waiting.
  const reached = eventDelivery(PLAIN, [wait, rec("localhost:3000/hook", hook, "replay", "failed", 500)]);
  assert.deepEqual(reached.targets, [{
    name: "localhost:3000/hook",
    outcome: "pending",
    status: 500,
    attempts: 1,
    replays: 1,
  }]);
  // Sent elsewhere (`replay ID --to URL`) where nothing listened: its own failed delivery, as before.
  const away: DeliveryFact = {
    ...rec("127.0.0.1:4000/x", "http://127.0.0.1:4000/x", "replay", "failed"),
    refused: true,
  };
  assert.deepEqual(eventDelivery(PLAIN, [wait, away]).others, [{
    name: "127.0.0.1:4000/x",
    outcome: "failed",
    attempts: 1,
    replays: 1,
  }]);
});

Deno.test("a failed replay while dev retries leaves the target retrying; dev's own last attempt gives up", () => {
  const hook = "http://localhost:3000/hook";
  const retrying = rec("t", hook, "forward", "retrying", 500);
  const replayed = rec("localhost:3000/hook", hook, "replay", "failed", 502);
  assert.deepEqual(eventDelivery(PLAIN, [retrying, replayed]).targets, [{
    name: "localhost:3000/hook",
    outcome: "retrying",
    status: 502,
    attempts: 2,
    replays: 1,
  }]);
  const gaveUp = rec("t", hook, "forward", "failed", 500);
  assert.equal(eventDelivery(PLAIN, [retrying, replayed, gaveUp]).state, "failed");
  assert.equal(eventDelivery(PLAIN, [retrying, gaveUp, replayed]).state, "failed");
  // Only sends by hand: the latest one's outcome, as before.
  assert.equal(eventDelivery(PLAIN, [replayed]).state, "failed");
  assert.equal(
    eventDelivery(PLAIN, [retrying, rec("x", hook, "replay", "delivered", 200)]).state,
    "delivered",
  );
});
