/**
 * Where forwarding keeps its files inside the data directory.
 * @module
 */
import { joinPath } from "../text/path.ts";
import type { StorePaths } from "../store/paths.ts";

/** Paths of forwarding's files. */
export interface ForwardPaths {
  /** Every delivery attempt, `.hooktap/deliveries.jsonl`. */
  readonly deliveries: string;
  /** The id of the last event whose forwarding (and every one before it) has settled, `.hooktap/forward_state.json`. */
  readonly state: string;
}

/** Forwarding's files in the store `paths`. */
export function forwardPaths(paths: Pick<StorePaths, "dir">): ForwardPaths {
  return {
    deliveries: joinPath(paths.dir, "deliveries.jsonl"),
    state: joinPath(paths.dir, "forward_state.json"),
  };
}
