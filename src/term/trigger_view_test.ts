import assert from "node:assert/strict";
import type { Delivery } from "../trigger/run.ts";
import { createColors } from "./colors.ts";
import { deliveryText } from "./trigger_view.ts";

const plain = createColors(false);

function delivery(fault?: Delivery["fault"]): Delivery {
  return {
    event: "push",
    attempt: 0,
    ...(fault ? { fault } : {}),
    provider: "github",
    method: "POST",
    url: "http://127.0.0.1:3000/github",
    headers: [],
    body: new Uint8Array(10),
    signed: "secret",
    expectRejection: fault === "bad-signature",
    status: 401,
    durationMs: 2,
    ok: fault === "bad-signature",
  };
}

Deno.test("trigger's line says a bad signature was made wrong on purpose, not signed with the secret", () => {
  assert.match(deliveryText(delivery(), plain), /signed with the secret/);
  const bad = deliveryText(delivery("bad-signature"), plain);
  assert.match(bad, /\[bad-signature\]/);
  assert.match(bad, /a signature made wrong on purpose/);
  assert.doesNotMatch(bad, /, signed with the secret/);
  assert.match(bad, /refused, as it should be/);
});
