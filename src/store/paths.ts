/**
 * Where the store's files live inside the data directory.
 * @module
 */
import { joinPath as join, resolvePath as resolve } from "../text/path.ts";

/** Name of the data directory, in the working directory. */
export const DATA_DIR_NAME = ".hooktap";

/** Paths of the store's files. */
export interface StorePaths {
  /** The data directory, `.hooktap/`. */
  readonly dir: string;
  /** The event log, `.hooktap/events.jsonl`. */
  readonly events: string;
  /** The writer's lock, `.hooktap/dev.lock`. */
  readonly lock: string;
  /** The latest-event-per-endpoint index, `.hooktap/index.json`. */
  readonly index: string;
  /** Requests that matched no endpoint (404/405), bounded, `.hooktap/unmatched.jsonl`. */
  readonly unmatched: string;
  /** Every delivery attempt (forwarding, relay, replay), `.hooktap/deliveries.jsonl`. */
  readonly deliveries: string;
  /** The id of the last event whose forwarding (and every one before it) has settled, `.hooktap/forward_state.json`. */
  readonly forwardState: string;
}

/**
 * Paths of the store in `dir` (default `.hooktap` in the working directory).
 *
 * @example
 * ```ts
 * import { storePaths } from "@hooktap/hooktap/testing";
 * console.log(storePaths().events); // /your/project/.hooktap/events.jsonl
 * ```
 */
export function storePaths(dir: string = join(Deno.cwd(), DATA_DIR_NAME)): StorePaths {
  const abs = resolve(dir);
  return {
    dir: abs,
    events: join(abs, "events.jsonl"),
    lock: join(abs, "dev.lock"),
    index: join(abs, "index.json"),
    unmatched: join(abs, "unmatched.jsonl"),
    deliveries: join(abs, "deliveries.jsonl"),
    forwardState: join(abs, "forward_state.json"),
  };
}
