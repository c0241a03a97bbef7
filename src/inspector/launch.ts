/**
 * Starting the inspector for a command, with hooktap's port rule: an
 * explicit port (`--ui-port`, `--port`, `ui.port`) must be free or the
 * command fails saying so; the default port (the receiver's + 1, or 8788)
 * moves on to the next free one and says which.
 * @module
 */
import type { Endpoint } from "../config/types.ts";
import type { StorePaths } from "../store/paths.ts";
import type { LiveSource } from "./live.ts";
import type { Resigner } from "./api/replay.ts";
import { DEV_PORT_OPTIONS, type Inspector, type PortOptions, startInspector } from "./server.ts";

/** Options of {@linkcode launchInspector}. */
export interface LaunchOptions {
  paths: StorePaths;
  /** The port to use. */
  port: number;
  /** Whether the user chose `port` (then it must be free) or it is the default (then the next free one will do). */
  explicit: boolean;
  endpoints: readonly Endpoint[];
  live?: LiveSource;
  resign?: Resigner;
  /**
   * Ports the default passes over though free, each with the forward target's URL: the inspector must not
   * take the port of an app hooktap forwards to (it may start after).
   */
  skip?: ReadonlyMap<number, string>;
  /** The starting command's options that choose the port (named in its messages). @default dev's */
  portOptions?: PortOptions;
}

/** A started inspector and, when it moved off the default port, a note saying so. */
export interface Launched {
  inspector: Inspector;
  note?: string;
}

/** Starts the inspector on 127.0.0.1. @throws {ServeError} when the port cannot be bound. */
export function launchInspector(o: LaunchOptions): Launched {
  const inspector = startInspector({
    paths: o.paths,
    port: o.port,
    nextFreePort: !o.explicit,
    ...(o.skip ? { skip: new Set(o.skip.keys()) } : {}),
    config: { endpoints: o.endpoints },
    ...(o.live ? { live: o.live } : {}),
    ...(o.resign ? { resign: o.resign } : {}),
    ...(o.portOptions ? { portOptions: o.portOptions } : {}),
  });
  if (!o.explicit && o.port !== 0 && inspector.port !== o.port) {
    const skipped = o.skip?.get(o.port);
    return {
      inspector,
      note: (skipped === undefined
        ? `port ${o.port} was taken`
        : `port ${o.port} is your app's (forward target ${skipped})`) +
        `, so the inspector is on ${inspector.port} (${(o.portOptions ?? DEV_PORT_OPTIONS).port} to choose)`,
    };
  }
  return { inspector };
}
