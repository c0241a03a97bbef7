/**
 * Why a stored event's signature failed, as hooktap tells it afterwards:
 * the reason checked at receipt, unless the record says `hooktap trigger`
 * made the delivery fail on purpose (`--bad-signature`, `--stale`). Then the
 * verdict is what the fault intends, and the advice checked at receipt
 * ("the secret is wrong: use the webhook's signing secret") would break a
 * working setup. Pure.
 * @module
 */
import type { CapturedEvent } from "../event/record.ts";

/** The faults of `hooktap trigger` that make a signature fail, and what each one did. */
const SIGNATURE_FAULTS: Readonly<Record<string, string>> = {
  "bad-signature": "made this signature wrong on purpose with --bad-signature, not with the secret",
  stale: "signed it over a timestamp older than the tolerance on purpose with --stale",
};

/**
 * The fault `hooktap trigger` sent `event` with on purpose that explains its failed signature
 * (`"bad-signature"`, `"stale"`), or `undefined` when the record names none, or its verdict did not fail.
 */
export function signatureFault(event: Pick<CapturedEvent, "verdict" | "trigger">): string | undefined {
  const fault = event.trigger?.fault;
  const status = event.verdict?.status;
  if (fault === undefined || SIGNATURE_FAULTS[fault] === undefined) return undefined;
  return status === "invalid" || status === "expired" ? fault : undefined;
}

/**
 * Why `event`'s signature failed: for a fault `hooktap trigger` sent on purpose, that fault (the verdict is
 * what it intends; the secret is not at fault), else the reason stored at receipt (`undefined`: none).
 */
export function verdictReason(event: Pick<CapturedEvent, "verdict" | "trigger">): string | undefined {
  const fault = signatureFault(event);
  if (fault === undefined) return event.verdict?.reason;
  return `hooktap trigger ${SIGNATURE_FAULTS[fault]}: ${event.verdict!.status}, as the fault intends; ` +
    "the endpoint's secret is not at fault";
}
