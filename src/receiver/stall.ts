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
    super(`No body data was read for ${ms / 1000} s.`);
    this.name = "BodyStalledError";
  }
}

/**
 * Default bound of the growth of the process's memory while a chunked body
 * has stopped arriving: 128 MiB (see {@linkcode BodyTrailerError}).
 */
export const DEFAULT_TRAILER_GROWTH_BYTES = 128 * 1024 * 1024;
/** A chunked body with no data for this long is watched for the trailer bound. */
const QUIET_MS = 200;
/** The sweep's longest interval (the trailer bound is checked at each sweep). */
const SWEEP_MAX_MS = 100;

/**
 * A chunked body stopped arriving while the process's memory grew past the
 * bound. Deno.serve (2.9) reads and buffers the bytes after a chunked body's
 * last chunk (trailer fields) for as long as they come, without a limit and
 * without telling the reader (the read just waits): 3 connections sending
 * 500 MB of trailer fields added 1.53 GB (issue 38). The only sign the
 * handler has is the process's memory growing while the body's data has
 * stopped; then the body is cut off (431, and the connection closed).
 */
export class BodyTrailerError extends Error {
  constructor(readonly bytes: number) {
    super(
      `The chunked body stopped arriving while hooktap's memory grew by more than ${
        bytes / (1024 * 1024)
      } MiB (bytes after the last chunk: trailer fields).`,
    );
    this.name = "BodyTrailerError";
  }
}

/** One body being read. */
export interface Watched {
  /** When its last bytes arrived (`performance.now()`). */
  last: number;
  /** Ends the read with an error. */
  fail(error: Error): void;
  /** A chunked body: watched for the trailer bound once its data stops. */
  chunked?: boolean;
  /** The least RSS seen since its data stopped (set by the watch). */
  quietRss?: number | undefined;
}

/** Watches bodies being read; fails those that stall for `ms`. */
export class StallWatch {
  #reading = new Set<Watched>();
  #timer: ReturnType<typeof setInterval> | undefined;
  /**
   * A watch over bodies being read.
   * @param ms the longest wait for the next bytes; 0 turns the watch off.
   * @param trailerBytes the bound of {@linkcode BodyTrailerError}.
   * @param rss the process's resident memory, in bytes.
   */
  constructor(
    readonly ms: number = DEFAULT_BODY_TIMEOUT_MS,
    readonly trailerBytes: number = DEFAULT_TRAILER_GROWTH_BYTES,
    private readonly rss: () => number = () => Deno.memoryUsage().rss,
  ) {}
  /** Starts watching `body`. */
  add(body: Watched): void {
    if (this.ms <= 0) return;
    this.#reading.add(body);
    if (this.#timer === undefined) {
      const timer = setInterval(() => this.#sweep(), Math.max(50, Math.min(SWEEP_MAX_MS, this.ms / 4)));
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
    let rss: number | undefined;
    for (const body of this.#reading) {
      if (now - body.last >= this.ms) {
        this.delete(body);
        body.fail(new BodyStalledError(this.ms));
      } else if (body.chunked && now - body.last >= QUIET_MS) {
        rss ??= this.rss();
        if (body.quietRss === undefined || rss < body.quietRss) body.quietRss = rss;
        else if (rss - body.quietRss > this.trailerBytes) {
          this.delete(body);
          body.fail(new BodyTrailerError(this.trailerBytes));
        }
      } else body.quietRss = undefined;
    }
  }
}
