/**
 * Whether the event log's path still names the file the writer holds open.
 * A log deleted or moved away while open (`rm -rf .hooktap` while dev runs)
 * would take every later line with it, unseen by any reader: the writer asks
 * before it acknowledges a batch, and this checks about once a second while
 * idle, so the loss is said at once rather than when the next event comes.
 * @module
 */
import { StoreError } from "../../errors.ts";
import { type FileIdentity, fileIdentity, pathNamesSync } from "./same_file.ts";

/** The event log was deleted or moved away while it was open: events can no longer be saved where readers look. */
export class LogGoneError extends StoreError {
  constructor(path: string) {
    super(
      `the event log ${path} was deleted or moved while hooktap dev ran, so events can no longer be saved ` +
        "there (start hooktap dev again: it starts a new log)",
    );
  }
}

/** The presence check of one open log. */
export interface LogPresence {
  /** The loss, once found (every batch is refused from then on). */
  readonly lost: StoreError | undefined;
  /** Settles with the loss once found; never otherwise. */
  readonly gone: Promise<StoreError>;
  /** Another process writes the log now (it took the writer lock): records that loss. */
  takenOver(error: StoreError): void;
  /** Whether the log may be cut back (false once another process writes it: its lines follow ours). */
  readonly mayCut: boolean;
  /**
   * Whether the path still names the open file (a batch written to it may be acknowledged); records the loss
   * when it does not. Synchronous (one `lstat`): asked once per batch.
   */
  check(): boolean;
  /** Forgets the file while a compaction replaces it: nothing is compared until {@linkcode LogPresence.resume}. */
  suspend(): void;
  /** Takes the identity of the reopened `file` (after a compaction) and checks again. */
  resume(file: Deno.FsFile | undefined): Promise<void>;
  /** Stops the idle check. */
  close(): void;
}

type Identity = FileIdentity | undefined;

/**
 * Starts checking that `path` names `file`: before each acknowledgement (`check`), and every `everyMs`
 * while idle (0: never; the timer does not keep the process alive).
 */
export async function watchLogPresence(
  path: string,
  file: Deno.FsFile,
  everyMs: number,
): Promise<LogPresence> {
  let identity: Identity = await fileIdentity(file);
  let open = file;
  let lost: StoreError | undefined;
  let replacing = false;
  const gone = Promise.withResolvers<StoreError>();
  let shared = false;
  const fail = (error: StoreError) => {
    lost ??= error;
    gone.resolve(lost);
  };
  const there = (): boolean => {
    const mine = identity;
    if (mine === undefined) return true; // no inode numbers (Windows), or mid-replacement: nothing to compare
    const names = pathNamesSync(path, open, mine);
    // Cannot tell (permissions): the writes themselves say when they fail.
    return names === "same" || names === "unknown";
  };
  const check = (): boolean => {
    // Taken over: a batch already written is in the log at the path (another process writes it now, but it
    // is there), so it is acknowledged; the writer refuses the batches after it.
    if (lost !== undefined) return shared;
    if (there()) return true;
    if (replacing) return true;
    fail(new LogGoneError(path));
    return false;
  };
  const timer = everyMs > 0
    ? setInterval(() => {
      if (!replacing && lost === undefined) check();
    }, everyMs)
    : undefined;
  if (timer !== undefined) Deno.unrefTimer(timer);
  return {
    get lost() {
      return lost;
    },
    gone: gone.promise,
    takenOver(error) {
      shared = true;
      fail(error);
    },
    get mayCut() {
      return !shared;
    },
    check,
    suspend() {
      replacing = true;
      identity = undefined;
    },
    async resume(file) {
      try {
        if (file !== undefined) {
          identity = await fileIdentity(file);
          open = file;
        }
      } catch { /* cannot stat it: no check until the next replacement */ }
      replacing = false;
    },
    close: () => clearInterval(timer),
  };
}
