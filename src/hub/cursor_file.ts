/**
 * The client's local state in `.hooktap/hub.json`: the channel, the last
 * sequence number stored and acknowledged, and what `doctor` and the
 * inspector show (connected, waiting, last received). Never the token.
 *
 * The cursor is written after each batch is durable in the event log; the
 * log itself is the final word (see {@linkcode storedHubSeqs}): a crash
 * between the two stores nothing twice.
 * @module
 */
import { parseEventLine } from "../event/record.ts";
import { readLine, scanBackward } from "../store/read/lines.ts";
import type { StorePaths } from "../store/paths.ts";
import { readNoFollow, writeFileReplacing } from "../store/write/no_follow.ts";

/** `.hooktap/hub.json`. */
export interface HubState {
  v: 1;
  /** The channel URL (no token). */
  url: string;
  channel: string;
  /** Last sequence number stored locally (or skipped: an event the client refuses) and acknowledged. */
  seq: number;
  connected: boolean;
  /** Events at the hub after `seq`, as of the last poll. */
  waiting: number;
  /** When the hub received the last event stored here. */
  lastReceivedAt: string | null;
  updatedAt: string;
  /** The last connection problem, when disconnected. */
  error?: string;
  /** This client's name at the hub (issue 28). */
  client?: string;
  /** How many of the hub's 507 refusals this client has reported. */
  refusedSeen?: number;
  /**
   * The hub refuses the token (rotated or revoked): what to do about it, and how many tokens it refused in a
   * row (a new one that is refused too is said again), and why the token could not be read again (its file's
   * mode). Gone once a token is taken.
   */
  tokenRefused?: { fix: string; tries: number; problem?: string };
  /** When the hub received event `seq` (tells a hub restored from a backup, which numbers events again). */
  seqAt?: string;
  /** The channel was deleted at the hub while this client polled: it polls no more. */
  gone?: boolean;
}

/** Path of the client's state file. */
export function hubStatePath(paths: StorePaths): string {
  return paths.hubState;
}

/** Reads the state file, or `null`. */
export async function readHubState(paths: StorePaths): Promise<HubState | null> {
  try {
    const text = await readNoFollow(hubStatePath(paths), "the hub state file");
    if (text === undefined) return null;
    const value = JSON.parse(text) as Partial<HubState>;
    if (value.v !== 1 || typeof value.channel !== "string" || !Number.isSafeInteger(value.seq)) return null;
    return value as HubState;
  } catch {
    return null;
  }
}

/**
 * Writes the state file atomically: an exclusive temp file with an unpredictable name, renamed over it
 * (a link planted at either is never written through).
 */
export async function writeHubState(paths: StorePaths, state: HubState): Promise<void> {
  await writeFileReplacing(hubStatePath(paths), JSON.stringify(state) + "\n");
}

/**
 * An event's identity at the hub: its sequence number and when the hub received it. The number alone is not
 * enough: a hub restored from a backup numbers its next events again from its last one.
 */
export function hubEventKey(seq: number, receivedAt: string | undefined): string {
  return `${seq} ${receivedAt ?? ""}`;
}

/**
 * The events of `channel` after `after` already in the event log (their {@linkcode hubEventKey}), read
 * from its end back to the first line of this channel at or before `after` (at most `maxLines` lines).
 */
export async function storedHubSeqs(
  paths: StorePaths,
  channel: string,
  after: number,
  maxLines = 5000,
): Promise<Set<string>> {
  const seqs = new Set<string>();
  let file: Deno.FsFile;
  try {
    file = await Deno.open(paths.events, { read: true });
  } catch {
    return seqs;
  }
  try {
    const end = (await file.stat()).size;
    const marker = `"hub":{"channel":${JSON.stringify(channel)}`;
    let lines = 0;
    for await (const line of scanBackward(file, end)) {
      if (++lines > maxLines || line.torn) {
        if (line.torn) continue;
        break;
      }
      const text = new TextDecoder().decode(await readLine(file, line));
      if (!text.includes(marker)) continue;
      const hub = parseEventLine(text)?.hub;
      if (hub?.seq === undefined) continue;
      if (hub.seq <= after) break;
      seqs.add(hubEventKey(hub.seq, hub.receivedAt));
    }
  } finally {
    file.close();
  }
  return seqs;
}
