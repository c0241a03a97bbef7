/**
 * The body-inactivity timeout: a body whose next bytes do not arrive within
 * the bound is cut off (the request gets a 408). One shared timer checks
 * every body being read, so a read costs a timestamp, not a timer of its own.
 * @module
 */

/** Default longest wait for the next bytes of a body: 60 s (a real sender never pauses that long). */
export const DEFAULT_BODY_TIMEOUT_MS = 60_000;

/** The body stopped arriving for longer than the bound. */
export class BodyStalledError extends Error {
  constructor(readonly ms: number) {
    super(`No body bytes arrived for ${ms / 1000} s.`);
    this.name = "BodyStalledError";
  }
}

/** One body being read. */
export interface Watched {
  /** When its last bytes arrived (`performance.now()`). */
  last: number;
  /** Ends the read with an error. */
  fail(error: Error): void;
}

/** Watches bodies being read; fails those that stall for `ms`. */
export class StallWatch {
  #reading = new Set<Watched>();
  #timer: ReturnType<typeof setInterval> | undefined;
  /** @param ms the longest wait for the next bytes; 0 turns the watch off. */
  constructor(readonly ms: number = DEFAULT_BODY_TIMEOUT_MS) {}
  /** Starts watching `body`. */
  add(body: Watched): void {
    if (this.ms <= 0) return;
    this.#reading.add(body);
    if (this.#timer === undefined) {
      const timer = setInterval(() => this.#sweep(), Math.max(50, Math.min(1000, this.ms / 4)));
      Deno.unrefTimer(timer);
      this.#timer = timer;
    }
  }
  /** Stops watching `body`. */
  delete(body: Watched): void {
    this.#reading.delete(body);
  }
  /** Stops the shared timer (the server has stopped): nothing outlives it. */
  close(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#reading.clear();
  }
  #sweep(): void {
    if (this.#reading.size === 0) {
      // Stopped here, not in delete: under steady traffic a timer per request would cost more than the read.
      clearInterval(this.#timer);
      this.#timer = undefined;
      return;
    }
    const now = performance.now();
    for (const body of this.#reading) {
      if (now - body.last >= this.ms) {
        this.delete(body);
        body.fail(new BodyStalledError(this.ms));
      }
    }
  }
}
