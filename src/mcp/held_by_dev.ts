/**
 * Events the `hooktap dev` running in the project still has waiting for
 * their forward target (pending, or retrying): that dev delivers them as
 * soon as the app listens, so a replay to the same target now could deliver
 * them twice. `replay` leaves them out of an `undelivered` bulk replay and
 * warns on a single one, as `hooktap replay` does (src/commands/replay/).
 * @module
 */
import type { CapturedEvent } from "../event/record.ts";
import { eventDelivery } from "../send/delivery_state.ts";
import { devOf, type McpContext, storeOf } from "./context.ts";
import { readDeliveryRecords } from "./deliveries.ts";

/** The running dev's pid and the ids of `events` it still has waiting; `undefined` when none runs or waits. */
export async function heldByDev(
  ctx: McpContext,
  events: readonly CapturedEvent[],
): Promise<{ ids: Set<string>; pid: number } | undefined> {
  const forwarded = events.filter((e) => e.forward !== undefined);
  if (forwarded.length === 0) return undefined;
  const dev = await devOf(ctx);
  if (dev === undefined) return undefined;
  const records = await readDeliveryRecords(storeOf(ctx), forwarded);
  const ids = new Set<string>();
  for (const e of forwarded) {
    const state = eventDelivery(e, records.get(e.id)).state;
    if (state === "pending" || state === "retrying") ids.add(e.id);
  }
  return ids.size === 0 ? undefined : { ids, pid: dev.pid };
}

/** The warning of a single replay of an event the running dev still has waiting. */
export function heldOneWarning(pid: number): string {
  return `the hooktap dev running here (pid ${pid}) still has this event waiting for its target: it sends it ` +
    "too as soon as the app listens, so the app may get it twice (stop that dev first to send it only once, or " +
    "send it elsewhere with `to`).";
}

/** The note of an `undelivered` bulk replay that left `n` events to the running dev. */
export function heldNote(n: number, pid: number, none: boolean): string {
  const them = n === 1 ? "it" : "them";
  return `${n === 1 ? "1 undelivered event is" : `${n} undelivered events are`} still pending while a ` +
    `hooktap dev runs here (pid ${pid}), which delivers waiting events as soon as their app listens: a replay ` +
    `now could deliver ${them} twice, so ${
      none ? "nothing was sent" : `this replay leaves ${them}`
    } (listed ` +
    `in held). To send ${them} yourself, stop that dev first, or send ${them} elsewhere with \`to\`.`;
}
