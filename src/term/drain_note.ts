/**
 * What `hooktap dev` says on stderr while it stops: what it is waiting for,
 * and what happened to requests it had to cut off.
 * @module
 */
import { plural } from "../text/format.ts";
import type { Colors } from "./colors.ts";

/** Printed at Ctrl-C when requests are still being received or saved. */
export function drainNote(inFlight: number, c: Colors): string {
  return c.yellow(`Stopping: finishing ${plural(inFlight, "upload")}… `) +
    c.dim("(up to 5 s) Ctrl-C again to quit now.") + "\n";
}

/** Printed when the wait ran out and uploads were answered 503 (the senders may retry). */
export function cutOffNote(cutOff: number, c: Colors): string {
  return c.yellow(
    `Cut off ${plural(cutOff, "upload")} still arriving: answered 503 with Retry-After, nothing stored ` +
      `(the sender can retry).`,
  ) + "\n";
}

/** Printed at the stop when the event log was deleted or moved away with deliveries still waiting for the app. */
export function lostDeliveriesNote(waiting: number, c: Colors): string {
  if (waiting === 0) return "";
  const they = waiting === 1 ? "its event was" : "their events were";
  return c.yellow(
    `${waiting} ${waiting === 1 ? "delivery" : "deliveries"} still waiting for your app ${
      waiting === 1 ? "was" : "were"
    } not sent: ` +
      `${they} in the event log that was deleted or moved, so no later hooktap dev sends ${
        waiting === 1 ? "it" : "them"
      }.`,
  ) + "\n";
}
