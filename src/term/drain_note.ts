/**
 * What `hooktap dev` says on stderr while it stops: what it is waiting for,
 * and what happened to requests it had to cut off.
 * @module
 */
import { plural } from "../text/format.ts";
import type { Colors } from "./colors.ts";

/**
 * Printed at Ctrl-C when requests are still in the handler: `relaying` of the `inFlight` were relayed to the
 * app and wait for its answer; the others are still arriving, being saved, or waiting out an answer's
 * `delay`. Each ends within the 5 s wait: cut off then (an upload answered 503, a relay 502), or answered.
 */
export function drainNote(inFlight: number, relaying: number, c: Colors): string {
  const others = inFlight - relaying;
  const arriving = `${plural(others, "request")} still arriving or being answered`;
  const relayed = `${plural(relaying, "relayed request")}`;
  const what = relaying === 0
    ? `finishing ${arriving}…`
    : others === 0
    ? `waiting for your app's answer to ${relayed}…`
    : `finishing ${plural(inFlight, "request")}: ${arriving}, ${relayed} waiting for your app's answer…`;
  return c.yellow(`Stopping: ${what} `) + c.dim("(up to 5 s) Ctrl-C again to quit now.") + "\n";
}

/** Printed when the wait ran out: what became of each request it cut off. */
export function cutOffNote(cut: { uploads: number; relays: number; unanswered: number }, c: Colors): string {
  const lines: string[] = [];
  if (cut.uploads > 0) {
    lines.push(
      `Cut off ${
        plural(cut.uploads, "upload")
      } still arriving: answered 503 with Retry-After, nothing stored ` +
        `(the sender can retry).`,
    );
  }
  if (cut.relays > 0) {
    const one = cut.relays === 1;
    lines.push(
      `Cut off ${plural(cut.relays, "relayed request")} your app had not answered: answered 502; ` +
        `${one ? "its event is" : "their events are"} stored.`,
    );
  }
  if (cut.unanswered > 0) {
    lines.push(
      `${plural(cut.unanswered, "request")} still being saved got no answer before the socket closed ` +
        `(the sender can retry; one that was saved is in the log).`,
    );
  }
  return lines.map((line) => c.yellow(line) + "\n").join("");
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
