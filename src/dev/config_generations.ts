/**
 * The config generations of a running `hooktap dev` (src/config/generation.ts):
 * the one in use and those a reload replaced. A generation a reload
 * replaced keeps its worker until the receiver had no request in flight
 * once since (a request routed with the old endpoints may still call its
 * functions), or at most {@linkcode RETIRE_AFTER_MS} under steady traffic,
 * then retires it; a refused reload leaves the old ones as they are. Disposing ends them all: dev disposes of this after its receiver
 * drained, so a request answered during the stop still reaches its function.
 * @module
 */
import type { ConfigGeneration } from "../config/generation.ts";

/** How often a replaced generation looks whether the receiver is idle, in milliseconds. */
const IDLE_POLL_MS = 100;

/**
 * The longest a replaced generation waits for an idle receiver, in milliseconds, so traffic that never pauses
 * does not keep every replaced worker. A request routed before the reload calls its function once its body is
 * read: 3 minutes covers an ordinary body by far, but a body trickled in (the body timeout bounds only the gap
 * between its chunks) can outlive it; that request gets a 500 asking to send it again.
 */
export const RETIRE_AFTER_MS = 180_000;

/** The generations of one dev run. */
export interface ConfigGenerations extends AsyncDisposable {
  /** The generation of the config dev serves now (the last adopted). */
  readonly current: ConfigGeneration;
  /** How many generations still run a worker (the current one among them when it has functions). */
  readonly running: number;
  /** A reload loaded `next` and dev serves its endpoints now: it becomes current. */
  adopt(next: ConfigGeneration): void;
  /**
   * Dev accepted `next` in full (forwarding too): every other generation retires once the receiver is idle
   * (`inFlight`, its requests in flight now, is 0). Nothing happens when `next` is no longer current (a later
   * reload was adopted since).
   */
  accept(next: ConfigGeneration, inFlight: () => number): void;
}

/** Holds `first` and each generation a reload adopts; `retireAfterMs` for tests. */
export function holdGenerations(
  first: ConfigGeneration,
  { retireAfterMs = RETIRE_AFTER_MS }: { retireAfterMs?: number } = {},
): ConfigGenerations {
  const all = new Set<ConfigGeneration>([first]);
  let current = first;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let disposed = false;
  let inFlight = () => 0;
  const retiring = new Map<ConfigGeneration, number>(); // each with when it began to retire
  const poll = () => {
    timer = undefined;
    if (disposed || retiring.size === 0) return;
    const idle = inFlight() === 0;
    const now = performance.now();
    for (const [generation, since] of retiring) {
      if (!idle && now - since < retireAfterMs) continue;
      retiring.delete(generation);
      all.delete(generation);
      void generation.retire();
    }
    if (retiring.size > 0) timer = setTimeout(poll, IDLE_POLL_MS);
  };
  return {
    get current() {
      return current;
    },
    get running() {
      return [...all].filter((g) => g.running).length;
    },
    adopt(next) {
      if (disposed) {
        void next[Symbol.asyncDispose]();
        return;
      }
      all.add(next);
      current = next;
    },
    accept(next, busy) {
      if (disposed || next !== current) return;
      inFlight = busy;
      const now = performance.now();
      for (const generation of all) {
        if (generation !== next && !retiring.has(generation)) retiring.set(generation, now);
      }
      if (timer === undefined) poll();
    },
    async [Symbol.asyncDispose]() {
      disposed = true;
      clearTimeout(timer);
      const ending = [...all];
      all.clear();
      retiring.clear();
      await Promise.all(ending.map((g) => g[Symbol.asyncDispose]()));
    },
  };
}
