import assert from "node:assert/strict";
import type { DeliveryRecord } from "../event/delivery.ts";
import type { CapturedEvent } from "../event/record.ts";
import { deliveriesOf, targetStates } from "./deliveries.ts";

let n = 0;
const rec = (
  target: string,
  url: string,
  source: DeliveryRecord["source"],
  outcome: DeliveryRecord["outcome"],
  extra: Partial<DeliveryRecord> = {},
): DeliveryRecord => ({
  v: 2,
  id: `dlv_${n++}`,
  event: "evt_x",
  endpoint: "gh",
  source,
  target,
  url,
  method: "POST",
  attempt: 1,
  startedAt: "2026-11-28T00:00:00.000Z",
  durationMs: 1,
  outcome,
  ...extra,
});

const EVENT = {
  id: "evt_x",
  query: "",
  forward: { to: "http://localhost:3000/hook", mode: "queue" },
} as unknown as CapturedEvent;

Deno.test("mcp's deliveries follow the one model: a failed resend elsewhere never makes the forward target failed", () => {
  const records = [
    rec("orders", "http://localhost:3000/hook", "forward", "retrying", { refused: true }),
    rec("orders", "http://localhost:3000/hook", "forward", "delivered", { status: 200 }),
    rec("localhost:3999/oops", "http://localhost:3999/oops", "replay", "failed"),
  ];
  assert.deepEqual(targetStates(EVENT, records), [
    // The try nothing listened to is not an attempt; the target the mark names is the one shown.
    { target: "localhost:3000/hook", kind: "forward", state: "delivered", status: 200, attempts: 1 },
    // A send by hand says so: it is a replay, not a retry; and to another URL, not the forward state.
    { target: "localhost:3999/oops", kind: "other", state: "failed", attempts: 1, replays: 1 },
  ]);
  const full = deliveriesOf(EVENT, records);
  assert.deepEqual(full.map((t) => [t.target, t.kind, t.state, t.attempts.length]), [
    ["localhost:3000/hook", "forward", "delivered", 2],
    ["localhost:3999/oops", "other", "failed", 1],
  ]);
});
