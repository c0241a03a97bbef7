/**
 * The hub's lines in `dev`'s output: the banner's line and the changes of
 * connection.
 * @module
 */
import type { HubState } from "../hub/cursor_file.ts";
import type { Colors } from "./colors.ts";
import { safeLine } from "../text/sanitize.ts";
import { invokedAs } from "../text/command_line.ts";

function channelShown(url: string): string {
  return safeLine(url);
}

/** `Hub: https://hub.example.com/c/… connected, 3 waiting, last received …`. */
export function hubLine(state: HubState, c: Colors): string {
  const link = state.connected
    ? c.green("connected")
    : c.yellow(`not connected (${safeLine(state.error ?? "?")})`);
  const last = state.lastReceivedAt === null ? "" : `, last received ${state.lastReceivedAt}`;
  const who = state.client === undefined ? "" : ` as ${safeLine(state.client)}`;
  return `Hub: ${c.cyan(channelShown(state.url))}${who} ${link}, ${state.waiting} waiting${last}\n` +
    c.dim("  senders use <hub channel URL>/<endpoint path>; events sent while dev is away wait at the hub\n");
}

/** A change of the connection, or `undefined` when nothing changed worth a line. */
export function hubChange(before: HubState | undefined, now: HubState, c: Colors): string | undefined {
  if (before === undefined) return undefined;
  if (now.gone) {
    if (before.gone) return undefined;
    return c.red(
      `Hub: the channel ${
        channelShown(now.url)
      } was deleted at the hub: its senders get 404 and nothing waits ` +
        `there for this client, which stops polling. Make a new channel (${invokedAs()} hub channel create), ` +
        "give its URL to the senders and restart dev with its URL and token.\n",
    );
  }
  const refused = now.tokenRefused;
  if (refused !== undefined && !now.connected) {
    const was = before.connected ? undefined : before.tokenRefused;
    if (refused.problem !== undefined && refused.problem !== was?.problem) {
      return c.yellow(`Hub: cannot read the token again: ${safeLine(refused.problem)}\n`);
    }
    if (refused.tries === was?.tries) return undefined;
    const which = refused.tries > 1 ? "the new token too" : "the token";
    return c.yellow(
      `Hub: the hub refused ${which} (rotated or revoked?): ${safeLine(refused.fix)}. ` +
        "Events wait at the hub.\n",
    );
  }
  if (before.connected === now.connected) return undefined;
  if (!now.connected) {
    return c.yellow(
      `Hub: connection lost (${safeLine(now.error ?? "?")}); retrying. Events wait at the hub.\n`,
    );
  }
  // Published before the batch is stored: `seq` is the last event stored before, the catch-up starts after.
  return c.green(
    now.waiting > 0
      ? `Hub: connected again; catching up from event ${now.seq + 1} (${now.waiting} waiting).\n`
      : "Hub: connected again; nothing waited at the hub.\n",
  );
}

/** The hub dropped events this client never got (it was away longer than the channel's retention). */
export function hubGapLine(gap: { missed: number; since: string | null }, c: Colors): string {
  const since = gap.since === null ? "" : ` since ${safeLine(gap.since)}`;
  return c.yellow(
    `Hub: ${gap.missed} event${
      gap.missed === 1 ? "" : "s"
    } missed${since}: this client was away longer than ` +
      "the channel's retention, and the hub no longer holds them.\n",
  );
}

/** The hub's event numbers went back (restored from a backup, or its store replaced). */
export function hubRewoundLine(r: { head: number; was: number; to: number }, c: Colors): string {
  const hub = r.head < r.was ? `ends at ${r.head}` : `holds another event ${r.was}`;
  return c.yellow(
    `Hub: the hub's event numbers went back (this client has up to ${r.was}; the hub ${hub}): it was ` +
      `restored from a backup or its store replaced. This client reads the hub's events again from ` +
      `${r.to + 1}, telling those it already has by their arrival time, so none is stored twice.\n`,
  );
}

/** The channel's storage cap refused senders' requests (507). */
export function hubRefusedLine(refused: { count: number; at: string }, c: Colors): string {
  return c.red(
    `Hub: the channel's storage is full: ${refused.count} request${
      refused.count === 1 ? "" : "s"
    } refused with 507 (last ${safeLine(refused.at)}). ` +
      `Senders that do not retry lost them; connect every client or remove gone ones (${invokedAs()} hub ` +
      "clients rm).\n",
  );
}

/** An event the client refused and skipped: which, why, that nothing of it is stored, and how to see it. */
export function hubSkippedLine(skipped: { seq: number; problem: string; show: string }, c: Colors): string {
  const problem = safeLine(skipped.problem);
  return c.red(
    `Hub: event ${skipped.seq} skipped: the hub sent it with ${problem}, which this client refuses. ` +
      "It is NOT stored here (not logged, not forwarded), and the cursor moves past it. The hub keeps " +
      "it until every client of the channel is past it (this one is now) or its retention ends; until then " +
      `curl -H "Authorization: Bearer <channel token>" '${safeLine(skipped.show)}' shows it.\n`,
  );
}
