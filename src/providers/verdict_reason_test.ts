import assert from "node:assert/strict";
import { signatureFault, verdictReason } from "./verdict_reason.ts";

const wrongSecret = { status: "invalid" as const, scheme: "stripe-v1", reason: "the secret is wrong: …" };

Deno.test("verdictReason names the fault `hooktap trigger` sent on purpose, not the wrong-secret advice", () => {
  const event = {
    verdict: wrongSecret,
    trigger: { event: "invoice.paid", fault: "bad-signature", attempt: 0 },
  };
  assert.equal(signatureFault(event), "bad-signature");
  const why = verdictReason(event)!;
  assert.match(why, /made this signature wrong on purpose with --bad-signature/);
  assert.match(why, /invalid, as the fault intends; the endpoint's secret is not at fault/);
  assert.doesNotMatch(why, /secret is wrong/);
});

Deno.test("verdictReason keeps the stored reason without a signature fault, or when the signature passed", () => {
  assert.equal(verdictReason({ verdict: wrongSecret }), wrongSecret.reason);
  const duplicate = { verdict: wrongSecret, trigger: { event: "push", fault: "duplicate", attempt: 0 } };
  assert.equal(verdictReason(duplicate), wrongSecret.reason);
  const valid = {
    verdict: { status: "valid" as const },
    trigger: { event: "x", fault: "stale", attempt: 0 },
  };
  assert.equal(signatureFault(valid), undefined);
  assert.equal(verdictReason(valid), undefined);
  const stale = {
    verdict: { status: "expired" as const },
    trigger: { event: "x", fault: "stale", attempt: 0 },
  };
  assert.match(
    verdictReason(stale)!,
    /older than the tolerance on purpose with --stale: expired, as the fault/,
  );
});
