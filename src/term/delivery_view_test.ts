import assert from "node:assert/strict";
import type { DeliveryRecord } from "../event/delivery.ts";
import { createColors } from "./colors.ts";
import { deliveryCell, renderDeliveries } from "./delivery_view.ts";

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

Deno.test("the logs cell counts attempts as tries, not as repeats of the status", () => {
  const last = attempt(5, 200, "delivered");
  assert.equal(deliveryCell({ last, attempts: 5, delivered: true }, true), "→ 200 (5 tries)");
  assert.equal(deliveryCell({ last, attempts: 1, delivered: true }, true), "→ 200");
  const retrying = attempt(2, 500, "retrying");
  assert.equal(deliveryCell({ last: retrying, attempts: 2, delivered: false }, true), "→ 500 (2 tries) …");
});

Deno.test("inspect's Deliveries section starts after a blank line", () => {
  const text = renderDeliveries([attempt(1, 200, "delivered")], plain);
  assert.match(text, /^\nDeliveries \(1\)\n/);
  assert.equal(renderDeliveries([], plain), "");
});
