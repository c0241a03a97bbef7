/**
 * The store's one write-side entry point: {@linkcode openStoreForWriting}
 * makes the data directory, takes the writer lock, opens the event log and
 * keeps its endpoint index, as one disposable; the parts a running `dev`
 * adds beside the log (the unmatched log, the control socket, retention)
 * start from it, each disposable too. Nothing outside `src/store/` needs the
 * writer's internals.
 * @module
 */
import type { Retention } from "./retention.ts";
import type { StorePaths } from "../paths.ts";
import type { CompactPlan, CompactResult } from "./compact.ts";
import { startControl } from "./control.ts";
import { ensureDataDir } from "./data_dir.ts";
import { keepIndex } from "./index_keeper.ts";
import { acquireWriterLock, type LockOwner, LockTakenError, type WriterLock } from "./lock.ts";
import { compactWhileWriting } from "./prune.ts";
import { startRetention } from "./retention.ts";
import { openUnmatchedLog, type UnmatchedLog } from "./unmatched.ts";
import { type EventWriter, openEventWriter } from "./writer.ts";

export type { CompactResult } from "./compact.ts";
export type { LockOwner } from "./lock.ts";
export type { UnmatchedEntry, UnmatchedLog } from "./unmatched.ts";

/** A data directory open for writing: disposing closes the log, writes the index and releases the lock. */
export interface WritingStore extends AsyncDisposable {
  readonly paths: StorePaths;
  /** The event log (the sink events are appended to; `count` and `repairedBytes`). */
  readonly writer: EventWriter;
  /** Records who holds the writer lock (shown to a second `hooktap dev`; `doctor` reads its port and run). */
  describe(owner: LockOwner): Promise<void>;
  /** Compacts the log with the writer paused (`prune`, `rm`, retention). */
  compact(plan: CompactPlan): Promise<CompactResult>;
  /**
   * The events the log holds now, once a compaction removed some since it was opened (the session's count
   * then no longer says what is in it); `undefined` while none did.
   */
  readonly eventsInLog: number | undefined;
  /** Opens `.hooktap/unmatched.jsonl` (the 404s and 405s, for `logs --unmatched` and `doctor`). */
  openUnmatched(): Promise<UnmatchedLog & AsyncDisposable>;
  /**
   * Listens on `.hooktap/control.sock` for `prune`/`rm` (compacting through this store) and for notes
   * (`hooktap trigger`'s faults). Without Unix sockets it starts nothing (prune and rm then say so).
   */
  startControl(
    onNote?: (note: unknown) => void,
    onNotice?: (message: string) => void,
  ): Promise<AsyncDisposable>;
  /** Applies `policy`: a prune now, then one every interval. */
  startRetention(
    policy: Retention,
    report: { onPruned?: (result: CompactResult) => void; onError?: (error: unknown) => void },
  ): AsyncDisposable;
}

/** An `AsyncDisposable` that runs `close` once. */
function disposable<T extends object>(value: T, close: () => Promise<void>): T & AsyncDisposable {
  let closing: Promise<void> | undefined;
  return Object.assign(value, { [Symbol.asyncDispose]: () => closing ??= close() });
}

/**
 * Checks about once a second that the lock's file is still the one held (`rm .hooktap/dev.lock`, thought
 * stale, would let a second `hooktap dev` write the same log): takes it again when it was deleted; when
 * another process took it meanwhile, the writer refuses every later event (that one writes here now).
 */
function keepLock(lock: WriterLock, writer: EventWriter, everyMs = 1000): AsyncDisposable {
  let checking: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    checking = checking.then(() => lock.keep()).then(() => {}, (error) => {
      if (!(error instanceof LockTakenError)) return; // cannot tell now (the directory is gone?): next time
      clearInterval(timer);
      writer.abandon(error);
    });
  }, everyMs);
  Deno.unrefTimer(timer);
  return {
    async [Symbol.asyncDispose]() {
      clearInterval(timer);
      await checking; // before the lock is released: never a check on a closed file
    },
  };
}

/**
 * Makes the data directory, takes its writer lock, opens (and repairs) the log and keeps its index.
 * @throws {StoreError} when another `hooktap dev` holds the lock or the log cannot be opened; nothing is
 * left open or locked then.
 */
export async function openStoreForWriting(paths: StorePaths): Promise<WritingStore> {
  await ensureDataDir(paths);
  await using stack = new AsyncDisposableStack();
  const lock = await acquireWriterLock(paths);
  stack.defer(() => lock.release());
  const writer = await openEventWriter(paths);
  const index = keepIndex(paths, writer); // .hooktap/index.json for `inspect --endpoint`
  stack.defer(() => index.close()); // after the writer's last batch
  stack.defer(() => writer.close());
  // A log or lock that is no longer this store's: nothing more is written there, the index neither.
  void writer.gone.then(() => index.suspend());
  stack.use(keepLock(lock, writer));
  let compacted: { kept: number; countThen: number } | undefined;
  const compact = async (plan: CompactPlan) => {
    const result = await compactWhileWriting(paths, writer, index, plan);
    // Read before the writer's next batch can be durable: it resumed, but its write has yet to happen.
    if (!result.unchanged) compacted = { kept: result.kept, countThen: writer.count };
    return result;
  };
  const owned = stack.move();
  return disposable({
    paths,
    writer,
    describe: (owner: LockOwner) => lock.describe(owner),
    compact,
    get eventsInLog() {
      return compacted === undefined ? undefined : compacted.kept + writer.count - compacted.countThen;
    },
    async openUnmatched() {
      const log = await openUnmatchedLog(paths);
      return disposable(log, () => log.close());
    },
    async startControl(onNote?: (note: unknown) => void, onNotice?: (message: string) => void) {
      const control = await startControl(paths, compact, onNote, onNotice);
      return disposable({}, async () => await control?.close());
    },
    startRetention(
      policy: Retention,
      report: { onPruned?: (result: CompactResult) => void; onError?: (error: unknown) => void },
    ) {
      const runner = startRetention(policy, compact, report);
      return disposable({}, () => runner.close());
    },
  }, () => owned.disposeAsync());
}
