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
  readonly #sweep: ReturnType<typeof setInterval>;

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
    } catch { /* a busy store: the next trim tries again */ }
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
