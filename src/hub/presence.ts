/**
 * Which channels have a client connected: polls held open per channel (the
 * connection cap counts them) and when a client was last seen. A sender is
 * held for a client's answer only while its channel counts as connected.
 * @module
 */

/** A client seen this recently (or a poll held now) counts as connected, by default. */
export const CONNECTED_MS = 3000;

/** The polls and contacts of every channel, in this process. */
export class Presence {
  /** Polls held open per channel (one token per channel: connections per token). */
  readonly #open = new Map<string, Set<AbortController>>();
  readonly #polls = new Map<string, { active: number; lastSeen: number }>();

  /**
   * @param windowMs how long after its last call a client still counts as connected (between two polls it
   * handles the events it got: a loaded machine can take seconds).
   */
  constructor(readonly windowMs: number = CONNECTED_MS) {}

  /** Marks `channel` as seen now (a client's call); its record is created on a client's first call. */
  seen(channel: string): { active: number; lastSeen: number } {
    let p = this.#polls.get(channel);
    if (p === undefined) this.#polls.set(channel, p = { active: 0, lastSeen: 0 });
    p.lastSeen = Date.now();
    return p;
  }

  /** Whether a client polls `channel` now or did a moment ago. */
  connected(channel: string): boolean {
    const p = this.#polls.get(channel);
    return p !== undefined && (p.active > 0 || Date.now() - p.lastSeen < this.windowMs);
  }

  /** Polls held open on `channel` now. */
  held(channel: string): number {
    return this.#open.get(channel)?.size ?? 0;
  }

  /** Counts a poll held open on `channel` (`control` ends it). */
  hold(channel: string, control: AbortController): void {
    let set = this.#open.get(channel);
    if (set === undefined) this.#open.set(channel, set = new Set());
    set.add(control);
  }

  /** A held poll ended. */
  release(channel: string, control: AbortController): void {
    this.#open.get(channel)?.delete(control);
  }

  /** Ends every poll held on `channel` (its token changed or it was deleted) and forgets its contacts. */
  cut(channel: string): void {
    for (const c of this.#open.get(channel) ?? []) c.abort();
    this.#polls.delete(channel); // no longer "connected": senders are not held for an answer
  }
}
