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
