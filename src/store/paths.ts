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
  /** The key pairs `trigger` signs with, `.hooktap/trigger-keys.json` (made once, never rewritten). */
  readonly triggerKeys: string;
  /** `dev --hub`'s client state, `.hooktap/hub.json`. */
  readonly hubState: string;
  /** The control socket of a running `dev`, `.hooktap/control.sock`. */
  readonly control: string;
  /** The shell completion's cache of endpoint names, `.hooktap/completion.json`. */
  readonly completion: string;
  /** Keeps the data directory out of git, `.hooktap/.gitignore`. */
  readonly gitignore: string;
  /** The compacted log before it replaces the event log, `.hooktap/events.jsonl.compact.tmp`. */
  readonly compactTemp: string;
}

/**
 * Every file hooktap writes in the data directory (the control socket aside: a socket is bound, never
 * written through). Each is written only through src/store/write/no_follow.ts, which never follows a link
 * there; tests/fault/links_test.ts plants one at each.
 */
export function dataFiles(paths: StorePaths): string[] {
  return [
    paths.events,
    paths.lock,
    paths.index,
    paths.unmatched,
    paths.deliveries,
    paths.forwardState,
    paths.triggerKeys,
    paths.hubState,
    paths.completion,
    paths.gitignore,
    paths.compactTemp,
    // The inspector's files are named after its port; shown here for one port, written by one function.
    ...Object.values(inspectorFiles(paths.dir, 8788)),
  ];
}

/** The inspector's owner-only files in the data directory `dir`: its token and the page `ui --open` opens. */
export function inspectorFiles(dir: string, port: number): { token: string; page: string } {
  return { token: join(dir, `inspector-${port}.token`), page: join(dir, `inspector-${port}.html`) };
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
    triggerKeys: join(abs, "trigger-keys.json"),
    hubState: join(abs, "hub.json"),
    control: join(abs, "control.sock"),
    completion: join(abs, "completion.json"),
    gitignore: join(abs, ".gitignore"),
    compactTemp: join(abs, "events.jsonl.compact.tmp"),
  };
}
