/**
 * A re-signer for the inspector's replay: the event with its signature made
 * anew with its endpoint's secret at the current time (the same signing as
 * `hooktap replay --resign`, through ./prepare.ts).
 * @module
 */
import type { Endpoint } from "../config/types.ts";
import type { CapturedEvent } from "../event/record.ts";
import { encodeBody } from "../event/record.ts";
import { prepareRequest } from "./prepare.ts";

/** Re-signs events of `endpoints`; throws (with the reason) when one cannot be re-signed. */
export function resignerFor(
  endpoints: readonly Endpoint[],
): (event: CapturedEvent, target?: URL, options?: { invalid?: boolean }) => Promise<CapturedEvent> {
  return async (event, target, options) => {
    const settings = endpoints.find((e) => e.name === event.endpoint)?.signing;
    const url = target ?? new URL(`http://localhost${event.path}${event.query ? `?${event.query}` : ""}`);
    const prepared = await prepareRequest(event, url, {
      resign: true,
      ...(options?.invalid ? { resignInvalid: true } : {}),
      ...(settings !== undefined ? { settings } : {}),
    });
    const body = prepared.body ?? new Uint8Array();
    return { ...event, ...encodeBody(body), bodySize: body.length, headers: prepared.headers };
  };
}
