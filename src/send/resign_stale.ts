/**
 * Forward retries that outlive a signature's tolerance: an event of a
 * timestamped scheme (Stripe, Slack, Standard Webhooks, Zoom, …) whose
 * endpoint has a secret is re-signed at the time of the attempt, so the app
 * still accepts it, when its signature was valid when it arrived (never one
 * invalid, expired, unsigned or unchecked). Everything else is sent as stored.
 * @module
 */
import type { Endpoint } from "../config/types.ts";
import { type CapturedEvent, validAtReceipt } from "../event/record.ts";
import { providerFacts } from "../providers/catalog.ts";
import { resignRequest } from "../providers/resign.ts";
import { type PreparedRequest, storedRequest } from "./deliver.ts";
import { keepPlaces } from "./overrides.ts";
import { deliveryUrl, type ForwardTarget } from "./target.ts";
import type { Prepare } from "./forwarder.ts";

/** Re-sign this long before the tolerance runs out, for the trip to the app. */
const MARGIN_MS = 30_000;

/**
 * A `prepare` for the forwarder: the request re-signed when its signed
 * timestamp is (nearly) outside the endpoint's tolerance, else `undefined`.
 */
export function resignWhenStale(
  endpointsOf: () => readonly Endpoint[],
  now: () => Date = () => new Date(),
): Prepare {
  // Not async: the common answer (nothing to re-sign) is given at once, without a promise per delivery.
  const prepare = (event: CapturedEvent, _attempt: number, target: ForwardTarget) => {
    if (!mayResign(event)) return undefined;
    const settings = endpointsOf().find((e) => e.name === event.endpoint)?.signing;
    if (settings === undefined || settings.secrets.length === 0) return undefined;
    const at = now();
    const age = at.getTime() - Date.parse(event.receivedAt);
    // The margin is at most half the tolerance: with a short one (`tolerance: 10`) a delivery made at once
    // still carries the sender's own signature.
    const margin = Math.min(MARGIN_MS, settings.tolerance * 500);
    if (age < settings.tolerance * 1000 - margin) return undefined;
    return resigned(event, target, settings, at);
  };
  // Whatever the config says later (a reload may add a secret): only these events may ever be re-signed.
  return Object.assign(prepare, { whole: mayResign });
}

/**
 * Whether `event` may be re-signed on its way to the app, by any config: a timestamped scheme's, its signature
 * found valid at receipt. Only such an event's headers and body are read by the `prepare` of
 * {@linkcode resignWhenStale}.
 */
export function mayResign(event: Pick<CapturedEvent, "provider" | "verdict">): boolean {
  const provider = event.provider;
  if (provider === undefined || providerFacts(provider)?.timestamped !== true) return false;
  // Only a signature found valid at receipt is renewed. One invalid or expired is never made valid on the
  // way to the app: the sender's own check would refuse it, and so should the app's (an expired one goes
  // as stored). A request that came unsigned (anyone's POST), or unchecked (no secret then), is never
  // signed by hooktap: that would hand the app a signature no sender made.
  return validAtReceipt(event);
}

/** The stored request signed afresh at `at`. */
async function resigned(
  event: CapturedEvent,
  target: ForwardTarget,
  settings: NonNullable<Endpoint["signing"]>,
  at: Date,
): Promise<PreparedRequest> {
  const provider = event.provider!;
  const stored = storedRequest(event);
  const headers = await resignRequest(
    provider,
    {
      method: stored.method,
      url: deliveryUrl(event, target.to).href,
      headers: stored.headers,
      body: stored.body ?? new Uint8Array(),
    },
    settings,
    at,
  );
  return { ...stored, headers: keepPlaces(stored.headers, headers), resigned: provider };
}
