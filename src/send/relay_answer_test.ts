import assert from "node:assert/strict";
import type { CapturedEvent } from "../event/record.ts";
import type { DeliveryRecord } from "../event/delivery.ts";
import type { AttemptOutcome } from "./deliver.ts";
import { relayAnswer, type StalledWrite } from "./relay_answer.ts";
import { RelayBudget } from "./relay_budget.ts";

const event = { id: "evt_1", method: "POST" } as CapturedEvent;

function answered(body: Uint8Array): AttemptOutcome {
  return {
    record: { url: "http://127.0.0.1:1/", status: 200, bodySize: body.length } as DeliveryRecord,
    response: { status: 200, statusText: "OK", headers: [], body, bodySize: body.length },
  } as unknown as AttemptOutcome;
}

Deno.test("relayAnswer(): a body handed whole before the bound ends whole, and no stall is told", async () => {
  const budget = new RelayBudget();
  const lease = budget.lease();
  const body = new Uint8Array(1000).fill(7);
  assert.ok(lease.take(body.length));
  const stalls: StalledWrite[] = [];
  const response = relayAnswer(event, answered(body), lease, { ms: 50, onStalled: (s) => stalls.push(s) });
  const reader = response.body!.getReader();
  const first = await reader.read(); // the server took the one piece: all of it is on its way
  assert.equal(first.value?.length, 1000);
  await new Promise((r) => setTimeout(r, 120)); // past the bound before the server asks again
  const end = await reader.read();
  assert.equal(end.done, true);
  // Nothing was cut: the sender gets all of it (as Content-Length says), so no "cut body" line is due.
  assert.deepEqual(stalls, []);
  assert.equal(response.headers.get("content-length"), "1000");
  assert.equal(budget.used, 0);
});

Deno.test("relayAnswer(): a sender that stops reading mid-body is cut at the bound and told once", async () => {
  const budget = new RelayBudget();
  const lease = budget.lease();
  const body = new Uint8Array(200 * 1024);
  assert.ok(lease.take(body.length));
  const stalls: StalledWrite[] = [];
  const response = relayAnswer(event, answered(body), lease, { ms: 50, onStalled: (s) => stalls.push(s) });
  const reader = response.body!.getReader();
  await reader.read(); // one piece of four, then the sender reads no more
  await new Promise((r) => setTimeout(r, 120));
  assert.deepEqual(stalls, [{ afterMs: 50, handed: 64 * 1024, size: 200 * 1024 }]);
  assert.equal((await reader.read()).done, true); // the stream ends short: Deno.serve closes the connection
  assert.equal(budget.used, 0); // the answer's share was given back
});
