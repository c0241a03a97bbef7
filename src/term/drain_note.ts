/**
 * What `hooktap dev` says on stderr while it stops: what it is waiting for,
 * and what happened to requests it had to cut off.
 * @module
 */
import { plural } from "../text/format.ts";
import type { Colors } from "./colors.ts";

/**
 * Printed at Ctrl-C when requests are still in the handler: `relaying` of the `inFlight` were relayed to the
 * app and wait for its answer (dev waits for it, longer than the 5 s a body gets); the others are still
 * arriving, being saved, or waiting out an answer's `delay` (each ends within 5 s: cut off with a 503, or
 * answered at once).
 */
export function drainNote(inFlight: number, relaying: number, c: Colors): string {
  const others = inFlight - relaying;
  const arriving = `${plural(others, "request")} still arriving or being answered`;
  const relayed = `${plural(relaying, "relayed request")}`;
  const what = relaying === 0
    ? `finishing ${arriving}… ${c.dim("(up to 5 s)")}`
    : others === 0
    ? `waiting for your app's answer to ${relayed}…`
    : `finishing ${plural(inFlight, "request")}: ${arriving} ${c.dim("(up to 5 s)")}, ` +
      `${relayed} waiting for your app's answer…`;
  return c.yellow(`Stopping: ${what} `) + c.dim("Ctrl-C again to quit now.") + "\n";
}

/** Printed when the wait ran out and uploads were answered 503 (the senders may retry). */
export function cutOffNote(cutOff: number, c: Colors): string {
  return c.yellow(
    `Cut off ${plural(cutOff, "upload")} still arriving: answered 503 with Retry-After, nothing stored ` +
      `(the sender can retry).`,
  ) + "\n";
}
