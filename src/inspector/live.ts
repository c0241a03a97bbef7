/**
 * The live feed: events as they are stored, for the inspector's stream.
 * `hooktap dev` publishes each event once the writer has made it durable
 * (before the sender gets its 200); `hooktap ui` follows the log file.
 * @module
 */
import type { CapturedEvent } from "../event/record.ts";
import { followEvents } from "../store/read/follow.ts";
import type { StorePaths } from "../store/paths.ts";

/** A source of newly stored events. */
export interface LiveSource {
  /** Calls `listener` with each new event until the returned function is called. */
  subscribe(listener: (event: CapturedEvent) => void): () => void;
  /**
   * Each event is told before any delivery record of it can be appended (`dev`'s own feed: told once
   * durable, and forwarded after): a listener may take it as having none yet. Not so for a feed that
   * follows the log another process writes (it may have forwarded the event already).
   */
  readonly beforeDeliveries: boolean;
}

/** A feed the writer side publishes to. */
export interface LiveFeed extends LiveSource {
  publish(event: CapturedEvent): void;
}

/**
 * A feed in memory: `publish` reaches every current subscriber at once. `beforeDeliveries` (default `true`,
 * as `dev` publishes): see {@linkcode LiveSource.beforeDeliveries}.
 */
export function createLiveFeed(options: { beforeDeliveries?: boolean } = {}): LiveFeed {
  const listeners = new Set<(event: CapturedEvent) => void>();
  return {
    beforeDeliveries: options.beforeDeliveries ?? true,
    publish(event) {
      for (const listener of listeners) {
        try {
          listener(event);
        } catch { /* one broken stream must not stop the others */ }
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}

/**
 * A feed that follows the log as another process appends to it, starting at
 * its current end; it polls only while someone listens.
 */
export function followLog(paths: StorePaths, options: { pollMs?: number } = {}): LiveSource {
  const feed = createLiveFeed({ beforeDeliveries: false });
  let count = 0;
  let stop: AbortController | undefined;
  const start = async (signal: AbortSignal) => {
    let from = 0;
    try {
      // Taken at once, so an event appended right after subscribing is not missed.
      from = Deno.statSync(paths.events).size;
    } catch { /* no log yet: follow from its start */ }
    for await (const event of followEvents(paths, from, { signal, pollMs: options.pollMs ?? 50 })) {
      feed.publish(event);
    }
  };
  return {
    beforeDeliveries: false,
    subscribe(listener) {
      const off = feed.subscribe(listener);
      if (count++ === 0) {
        stop = new AbortController();
        start(stop.signal).catch(() => {});
      }
      return () => {
        off();
        if (--count === 0) stop?.abort();
      };
    },
  };
}
