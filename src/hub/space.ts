/**
 * A channel's storage as this process sees it: the bytes its events hold
 * (read from the store at most every second, plus what this process
 * appended), the bytes reserved by events being stored now (so the cap holds
 * under concurrency), and trims of what may go (throttled, and swept every
 * minute for the channels that received).
 * @module
 */
import type { HubStore } from "./kv_store.ts";

/** The storage of every channel, in this process. */
export class ChannelSpace {
  readonly #reserved = new Map<string, number>();
  readonly #used = new Map<string, { bytes: number; until: number }>();
  readonly #trimmedAt = new Map<string, number>();
  /** A trim skipped by the throttle runs once it allows (at most one per channel). */
  readonly #trailing = new Map<string, ReturnType<typeof setTimeout>>();
  readonly #received = new Set<string>();
  readonly #trimming = new Map<string, Promise<void>>();
  readonly #sweep: ReturnType<typeof setInterval>;
  /**
   * Channels found full a moment ago (a forced trim dropped nothing): the room they had left, and until when
   * that holds. A flood of senders to a full channel is refused from here, not with a forced trim, a usage
   * read and a write each: those, under one sender's flood, slowed every other channel about 19-fold.
   */
  readonly #full = new Map<string, { room: number; until: number }>();
  /** Refusals not yet counted in the store, per channel (written at most one batch at a time). */
  readonly #refusals = new Map<string, { count: number; at: number; writing: boolean }>();

  /**
   * @param store the hub's store.
   * @param now the clock retention is judged by.
   * @param retentionMs how long an event is kept for a client that has not acknowledged it.
   */
  constructor(readonly store: HubStore, readonly now: () => number, readonly retentionMs: number) {
    this.#sweep = setInterval(() => {
      for (const channel of this.#received) void this.trim(channel);
      this.#received.clear();
    }, 60_000);
    Deno.unrefTimer(this.#sweep);
  }

  /** Notes that `channel` received (the next sweep trims it). */
  received(channel: string): void {
    this.#received.add(channel);
  }

  /**
   * Drops what may go (acked by every client, or past retention); at most once a second unless forced. A
   * trim the throttle skips runs later (a trailing run): acks in quick succession are all trimmed for, even
   * when nothing comes after them.
   */
  async trim(channel: string, force = false): Promise<void> {
    const t = performance.now(); // throttled in real time; retention is judged by the (injectable) clock
    const since = t - (this.#trimmedAt.get(channel) ?? -Infinity);
    if (!force && since < 1000) {
      if (!this.#trailing.has(channel)) {
        const timer = setTimeout(() => {
          this.#trailing.delete(channel);
          void this.trim(channel);
        }, 1000 - since);
        Deno.unrefTimer(timer);
        this.#trailing.set(channel, timer);
      }
      return;
    }
    this.#trimmedAt.set(channel, t);
    try {
      const result = await this.store.trim(channel, { now: this.now(), retentionMs: this.retentionMs });
      const u = this.#used.get(channel);
      if (u !== undefined) u.bytes -= result.bytes;
      if (result.bytes > 0) this.#full.delete(channel);
    } catch { /* a busy store: the next trim tries again */ }
  }

  /**
   * The forced trim of senders that find `channel` full: one at a time, shared by the senders that find it
   * full meanwhile (a burst of them costs one trim, not one each).
   */
  async trimWhenFull(channel: string): Promise<void> {
    const running = this.#trimming.get(channel);
    if (running !== undefined) return await running;
    const done = this.trim(channel, true).finally(() => this.#trimming.delete(channel));
    this.#trimming.set(channel, done);
    return await done;
  }

  /** How long a channel found full is taken as full without looking again. */
  static readonly FULL_MS = 1000;

  /** Whether `channel` was found full a moment ago, with less room than `cost`. */
  knownFull(channel: string, cost: number): boolean {
    const full = this.#full.get(channel);
    if (full === undefined) return false;
    if (full.until <= performance.now()) {
      this.#full.delete(channel);
      return false;
    }
    return cost > full.room;
  }

  /** An ack or a client's removal may have made room on `channel`: the next sender looks again. */
  mayHaveRoom(channel: string): void {
    this.#full.delete(channel);
  }

  /** Notes that `channel` had only `room` bytes left after a forced trim (see {@linkcode knownFull}). */
  markFull(channel: string, room: number): void {
    this.#full.set(channel, { room: Math.max(0, room), until: performance.now() + ChannelSpace.FULL_MS });
  }

  /**
   * Counts a request the cap refused at `at`: added to the store's count, one write at a time per channel
   * (the refusals meanwhile go in the next), so a flood costs a write per batch, not per request.
   */
  refused(channel: string, at: number): Promise<void> {
    let pending = this.#refusals.get(channel);
    if (pending === undefined) this.#refusals.set(channel, pending = { count: 0, at, writing: false });
    pending.count++;
    pending.at = Math.max(pending.at, at);
    return pending.writing ? Promise.resolve() : this.#writeRefusals(channel, pending);
  }

  async #writeRefusals(channel: string, pending: { count: number; at: number; writing: boolean }) {
    pending.writing = true;
    try {
      while (pending.count > 0) {
        const { count, at } = pending;
        pending.count = 0;
        await this.store.noteRefused(channel, at, count).catch(() => {});
      }
    } finally {
      this.#refusals.delete(channel);
    }
  }

  /** Bytes the channel's events hold: known within a second, or read now when `exact`. */
  async used(channel: string, exact: boolean): Promise<number> {
    const known = this.#used.get(channel);
    if (!exact && known !== undefined && known.until > performance.now()) return known.bytes;
    const bytes = await this.store.usage(channel);
    this.#used.set(channel, { bytes, until: performance.now() + 1000 });
    return bytes;
  }

  /** Bytes reserved on `channel` by events being stored now. */
  reserved(channel: string): number {
    return this.#reserved.get(channel) ?? 0;
  }

  /** Reserves `bytes` (an event being stored), or gives them back (negative). */
  reserve(channel: string, bytes: number): void {
    const left = this.reserved(channel) + bytes;
    if (left <= 0) this.#reserved.delete(channel);
    else this.#reserved.set(channel, left);
  }

  /** Adds `bytes` this process appended to what is known. */
  appended(channel: string, bytes: number): void {
    const u = this.#used.get(channel);
    if (u !== undefined) u.bytes += bytes;
  }

  /** Stops the sweep and the trailing trims. */
  close(): void {
    clearInterval(this.#sweep);
    for (const timer of this.#trailing.values()) clearTimeout(timer);
    this.#trailing.clear();
  }
}
