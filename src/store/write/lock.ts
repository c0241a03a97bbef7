/**
 * One writer per data directory: `hooktap dev` holds an exclusive lock on
 * `.hooktap/dev.lock` for as long as it runs. The kernel drops the lock when
 * the process dies, even by SIGKILL, so a stale lock never blocks a restart.
 * @module
 */
import { StoreError } from "../../errors.ts";
import { openNoFollow } from "./no_follow.ts";
import { fileIdentity, pathNames } from "./same_file.ts";
import type { StorePaths } from "../paths.ts";
import { suggestCommand } from "../../text/command_line.ts";

/** Who holds the lock, as written into the lock file. */
export interface LockOwner {
  pid: number;
  port?: number;
  startedAt: string;
  /** The run's nonce, which the port's probe answers (src/receiver/probe.ts). */
  run?: string;
  /** What holds it when it is not `hooktap dev`: `prune` (and `rm`) compact the log under the same lock. */
  command?: string;
  /**
   * The run's `--config`, as given (relative to the directory dev runs in); absent for the default
   * hooktap.config.ts (or the starter config). doctor and trigger use it when they are given none.
   */
  config?: string;
  /**
   * The names of the forward targets dev sends to now, per endpoint (rewritten after each reload): `replay
   * --undelivered` leaves only the events waiting for one of them (dev sends those), not those kept for a
   * target dev no longer has. Absent: a dev that did not say (an older one).
   */
  targets?: Record<string, string[]>;
  /** The port of dev's inspector, when it runs (`hooktap ui` finding that port taken says it is dev's). */
  inspector?: number;
}

/** A held writer lock. */
export interface WriterLock {
  /** Records who holds it (shown to a second `hooktap dev`). */
  describe(owner: LockOwner): Promise<void>;
  /**
   * Keeps holding it when its file was deleted or replaced (`rm .hooktap/dev.lock`, thought stale): a lock on
   * a file no longer at the path stops no second `hooktap dev`, so the lock is taken again on the file there
   * now (made when missing). Resolves to whether it had to.
   * @throws {LockTakenError} when another process took the lock meanwhile (it writes here now).
   */
  keep(): Promise<boolean>;
  release(): void;
}

/** Another `hooktap dev` took the data directory's lock after its file was deleted under this one. */
export class LockTakenError extends StoreError {}

/** Another process holds the data directory's lock: `holder` is what its file says (unknown when empty). */
export class LockHeldError extends StoreError {
  /** What holds it, as its lock file says (`undefined` when the file is empty or unreadable). */
  readonly holder: LockOwner | undefined;
  constructor(message: string, holder: LockOwner | undefined) {
    super(message);
    this.holder = holder;
  }
}

/** What a lock file's `owner` names: `hooktap dev (pid 1, port 8787)`, `hooktap prune (pid 2)`. */
function holderText(owner: LockOwner): string {
  return `hooktap ${
    owner.command === "prune" || owner.command === "rm" ? owner.command : "dev"
  } (pid ${owner.pid}${owner.port !== undefined ? `, port ${owner.port}` : ""}`;
}

async function readOwner(path: string): Promise<LockOwner | undefined> {
  try {
    return JSON.parse(await Deno.readTextFile(path)) as LockOwner;
  } catch {
    return undefined;
  }
}

/**
 * Takes the writer lock of a data directory, and at once writes this process as its owner (what a previous
 * holder left there would otherwise name a process that is gone, or its port, until {@linkcode
 * WriterLock.describe}).
 * @param command what takes it, when not `hooktap dev`
 * @throws {StoreError} when another process holds it, naming that process.
 */
export async function acquireWriterLock(paths: StorePaths, command?: string): Promise<WriterLock> {
  const file = await openNoFollow(paths.lock, "the lock file", { read: true, write: true });
  if (!(await file.tryLock(true))) {
    file.close();
    const owner = await readOwner(paths.lock);
    const who = owner ? `${holderText(owner)}, started ${owner.startedAt})` : "another hooktap process";
    if (owner?.command !== undefined && owner.command !== "dev") {
      throw new LockHeldError(
        `${who} is already writing to ${paths.dir}: try again when it has finished.`,
        owner,
      );
    }
    throw new LockHeldError(
      `${who} is already writing to ${paths.dir}. Only one hooktap dev may use a data directory: ` +
        `stop that one first (kill ${owner?.pid ?? "<pid>"}), or run this one from another directory. ` +
        `${suggestCommand(["logs"])}, inspect and replay work while it runs.`,
      owner,
    );
  }
  let held = file;
  let owner: LockOwner | undefined;
  const write = async (into: Deno.FsFile, who: LockOwner) => {
    const bytes = new TextEncoder().encode(JSON.stringify(who) + "\n");
    await into.truncate(0);
    await into.seek(0, Deno.SeekMode.Start);
    await into.write(bytes);
  };
  try {
    await write(held, { pid: Deno.pid, startedAt: new Date().toISOString(), ...command ? { command } : {} });
  } catch {
    // A full disk: the holder goes unnamed rather than misnamed (the lock holds all the same), and what needs
    // the space fails next with its own message and fix.
    await held.truncate(0).catch(() => {});
  }
  return {
    async describe(who) {
      owner = who;
      await write(held, who);
    },
    async keep() {
      const mine = await fileIdentity(held);
      if (mine === undefined) return false; // no inode numbers (Windows): nothing to compare
      const names = await pathNames(paths.lock, held, mine);
      if (names === "same" || names === "unknown") return false; // "unknown": cannot tell, keep what is held
      const next = await openNoFollow(paths.lock, "the lock file", { read: true, write: true });
      if (!(await next.tryLock(true))) {
        next.close();
        const other = await readOwner(paths.lock);
        throw new LockTakenError(
          `${paths.lock} was deleted while this hooktap dev ran, and ${
            other ? `${holderText(other)})` : "another hooktap process"
          } started in its place and writes to ${paths.dir} now: this one stopped, so that only one writes there`,
        );
      }
      if (owner !== undefined) await write(next, owner);
      try {
        held.unlockSync();
      } finally {
        held.close();
      }
      held = next;
      return true;
    },
    release() {
      try {
        held.unlockSync();
      } finally {
        held.close();
      }
    },
  };
}
