/**
 * One writer per data directory: `hooktap dev` holds an exclusive lock on
 * `.hooktap/dev.lock` for as long as it runs. The kernel drops the lock when
 * the process dies, even by SIGKILL, so a stale lock never blocks a restart.
 * @module
 */
import { StoreError } from "../../errors.ts";
import { openNoFollow } from "./no_follow.ts";
import type { StorePaths } from "../paths.ts";
import { suggestCommand } from "../../text/command_line.ts";

/** Who holds the lock, as written into the lock file. */
export interface LockOwner {
  pid: number;
  port?: number;
  startedAt: string;
  /** The run's nonce, which the port's probe answers (src/receiver/probe.ts). */
  run?: string;
  /**
   * The run's `--config`, as given (relative to the directory dev runs in); absent for the default
   * hooktap.config.ts (or the starter config). doctor and trigger use it when they are given none.
   */
  config?: string;
}

/** A held writer lock. */
export interface WriterLock {
  /** Records who holds it (shown to a second `hooktap dev`). */
  describe(owner: LockOwner): Promise<void>;
  release(): void;
}

async function readOwner(path: string): Promise<LockOwner | undefined> {
  try {
    return JSON.parse(await Deno.readTextFile(path)) as LockOwner;
  } catch {
    return undefined;
  }
}

/**
 * Takes the writer lock of a data directory.
 * @throws {StoreError} when another process holds it, naming that process.
 */
export async function acquireWriterLock(paths: StorePaths): Promise<WriterLock> {
  const file = await openNoFollow(paths.lock, "the lock file", { read: true, write: true });
  if (!(await file.tryLock(true))) {
    file.close();
    const owner = await readOwner(paths.lock);
    const who = owner
      ? `hooktap dev (pid ${owner.pid}${
        owner.port !== undefined ? `, port ${owner.port}` : ""
      }, started ${owner.startedAt})`
      : "another hooktap dev";
    throw new StoreError(
      `${who} is already writing to ${paths.dir}. Only one hooktap dev may use a data directory: ` +
        `stop that one first (kill ${owner?.pid ?? "<pid>"}), or run this one from another directory. ` +
        `${suggestCommand(["logs"])}, inspect and replay work while it runs.`,
    );
  }
  return {
    async describe(owner) {
      const bytes = new TextEncoder().encode(JSON.stringify(owner) + "\n");
      await file.truncate(0);
      await file.seek(0, Deno.SeekMode.Start);
      await file.write(bytes);
    },
    release() {
      try {
        file.unlockSync();
      } finally {
        file.close();
      }
    },
  };
}
