/**
 * The hub's lines in `dev`'s output: the banner's line and the changes of
 * connection.
 * @module
 */
import type { HubState } from "../hub/cursor_file.ts";
import type { Colors } from "./colors.ts";
import { safeLine } from "./sanitize.ts";

function channelShown(url: string): string {
  return safeLine(url);
}

/** `Hub: https://hub.example.com/c/… connected, 3 waiting, last received …`. */
export function hubLine(state: HubState, c: Colors): string {
  const link = state.connected
    ? c.green("connected")
    : c.yellow(`not connected (${safeLine(state.error ?? "?")})`);
  const last = state.lastReceivedAt === null ? "" : `, last received ${state.lastReceivedAt}`;
  return `Hub: ${c.cyan(channelShown(state.url))} ${link}, ${state.waiting} waiting${last}\n` +
    c.dim("  senders use <hub channel URL>/<endpoint path>; events sent while dev is away wait at the hub\n");
}

/** A change of the connection, or `undefined` when nothing changed worth a line. */
export function hubChange(before: HubState | undefined, now: HubState, c: Colors): string | undefined {
  if (before === undefined || before.connected === now.connected) return undefined;
  return now.connected
    ? c.green(`Hub: connected again; catching up from event ${now.seq + 1}.\n`)
    : c.yellow(`Hub: connection lost (${safeLine(now.error ?? "?")}); retrying. Events wait at the hub.\n`);
}
