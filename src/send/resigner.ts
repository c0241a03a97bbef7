/**
 * A re-signer for the inspector's replay: the event with its signature made
 * anew with its endpoint's secret at the current time (the same signing as
 * `hooktap replay --resign`).
 * @module
 */
import type { Endpoint } from "../config/types.ts";
import type { CapturedEvent } from "../event/record.ts";
import { prepareReplay } from "./prepare.ts";

/** Re-signs events of `endpoints`; throws (with the reason) when one cannot be re-signed. */
export function resignerFor(
  endpoints: readonly Endpoint[],
): (event: CapturedEvent, target?: URL) => Promise<CapturedEvent> {
  return async (event, target) => {
    const settings = endpoints.find((e) => e.name === event.endpoint)?.signing;
    const url = target ?? new URL(`http://localhost${event.path}${event.query ? `?${event.query}` : ""}`);
    const prepared = await prepareReplay(event, url, {
      resign: true,
      method: event.method,
      ...(settings !== undefined ? { settings } : {}),
    });
    return prepared.event;
  };
}
