/**
 * Reading the lock of the `hooktap dev` running in a directory: the writer
 * lock on `.hooktap/dev.lock` is held while it runs, and the file holds what
 * it wrote at start (its pid, port, config). `trigger`, `replay`, `doctor`,
 * mcp and the readers' note about a line still being written ask it; nothing
 * here writes.
 * @module
 */
import type { StorePaths } from "../paths.ts";

/** The running dev: its pid and receiver port. */
export interface RunningDev {
  pid: number;
  port: number;
  /**
   * The names of the forward targets it sends to now, per endpoint that forwards; `undefined` when its lock
   * does not say (a dev of an older hooktap).
   */
  targets?: ReadonlyMap<string, readonly string[]>;
  /** The port of its inspector, when it runs one and says so. */
  inspector?: number;
}

/**
 * Whether a `hooktap dev` holds the writer lock at `path` (it writes the log). Synchronous, as the readers'
 * scans are: a lock probe does not wait (a try), so the async form would only cost more.
 */
export function devHoldsLock(path: string): boolean {
  let file: Deno.FsFile;
  try {
    file = Deno.openSync(path, { read: true });
  } catch {
    return false;
  }
  try {
    if (file.tryLockSync(false)) {
      file.unlockSync();
      return false; // nobody holds it: no dev
    }
    return true;
  } catch {
    return false;
  } finally {
    file.close();
  }
}

/**
 * What the `hooktap dev` holding the lock at `path` wrote in it (JSON), or `undefined` when no dev holds the
 * lock, or the file is missing or unreadable.
 */
export async function heldLockOwner(path: string): Promise<Record<string, unknown> | undefined> {
  if (!devHoldsLock(path)) return undefined;
  try {
    const owner = JSON.parse(await Deno.readTextFile(path));
    return owner !== null && typeof owner === "object" ? owner as Record<string, unknown> : undefined;
  } catch {
    return undefined;
  }
}

/** The `hooktap dev` holding `paths`' writer lock, or `undefined` when none runs. */
export async function runningDev(paths: Pick<StorePaths, "lock">): Promise<RunningDev | undefined> {
  const owner = await heldLockOwner(paths.lock);
  if (typeof owner?.port !== "number") return undefined;
  const dev: RunningDev = { pid: typeof owner.pid === "number" ? owner.pid : 0, port: owner.port };
  if (typeof owner.inspector === "number") dev.inspector = owner.inspector;
  const targets = owner.targets;
  if (targets !== null && typeof targets === "object" && !Array.isArray(targets)) {
    dev.targets = new Map(
      Object.entries(targets).map(([endpoint, names]) => [
        endpoint,
        Array.isArray(names) ? names.filter((n): n is string => typeof n === "string") : [],
      ]),
    );
  }
  return dev;
}
