/**
 * The event log's single writer: appends records to `.hooktap/events.jsonl`
 * with group commit. Lines that arrive while a write and sync are in flight
 * wait and then share the next write and the next fdatasync, so a burst of
 * concurrent requests costs one sync per batch, not one per request, and
 * every `append` resolves only once its line is on disk.
 *
 * A failed write (disk full, read-only, I/O error) rejects the whole batch
 * and cuts the file back to its last good length, so nothing half-written
 * remains; the next batch tries again.
 *
 * A log deleted or moved away while it is open (`rm -rf .hooktap` while dev
 * runs) would take every later line with it: the writer checks, before it
 * acknowledges a batch and about once a second, that the path still names
 * the file it writes; once it does not, every batch is refused ({@linkcode
 * LogGoneError}) and `gone` settles, so no sender is told an event was kept
 * that is in no file.
 * @module
 */
import { describeError, StoreError } from "../../errors.ts";
import type { CapturedEvent } from "../../event/record.ts";
import { LineBuffer } from "../../event/record_line.ts";
import type { EventSink } from "../../ports.ts";
import { ensureDataDir } from "./data_dir.ts";
import { openNoFollow } from "./no_follow.ts";
import type { StorePaths } from "../paths.ts";
import { repairTail } from "./repair.ts";
import { basenameOf } from "../../text/path.ts";
import { writeFailureOf } from "./write_fix.ts";
import { watchLogPresence } from "./log_presence.ts";

export { LogGoneError } from "./log_presence.ts";

/** Options of {@linkcode openEventWriter}. */
export interface EventWriterOptions {
  /**
   * fdatasync each batch before acknowledging it. Only benchmarks turn it off.
   * @default true
   */
  sync?: boolean;
  /**
   * How often to check, while idle, that the log's path still names the open file (0: only before each
   * acknowledgement).
   * @default 1000
   */
  checkEveryMs?: number;
}

/** An open event log. */
export interface EventWriter extends EventSink {
  /** Bytes cut off a torn last line when the log was opened (0 if none). */
  readonly repairedBytes: number;
  /** Events appended (and durable) since it was opened (none after the log is `gone`). */
  readonly count: number;
  /** Write-and-sync batches done since it was opened (group commit: at most `count`). */
  readonly batches: number;
  /** The log's size in bytes, up to its last durable line. */
  readonly size: number;
  /** Latest event id of each endpoint appended since it was opened. */
  readonly latest: ReadonlyMap<string, string>;
  /**
   * Runs `work` (a compaction that replaces the log file) with writing
   * paused: it starts once the batch in flight is durable; appends made
   * meanwhile wait, unacknowledged, and are written to the new file after
   * it, which is reopened. `latest` then holds only events appended since.
   */
  pause<T>(work: () => Promise<T>): Promise<T>;
  /**
   * Settles with the {@linkcode LogGoneError} once the log's path no longer names the open file (deleted or
   * moved away), or with the error given to {@linkcode EventWriter.abandon}; every append is refused from then
   * on. Never settles otherwise.
   */
  readonly gone: Promise<StoreError>;
  /**
   * Another process writes the log now (it took the writer lock): refuses every later append with `error`,
   * never cuts the log back again, and settles `gone`.
   */
  abandon(error: StoreError): void;
  /** Waits for pending appends, then closes the file. */
  close(): Promise<void>;
  /**
   * Calls `listener` with each batch's events once they are durable, before their appends resolve (one call a
   * batch, where a `.then` on each append cost a promise and a closure per event).
   */
  observe(listener: (events: readonly CapturedEvent[]) => void): void;
}

/**
 * A batch up to this size is written with synchronous calls, and an asynchronous write cost ~10–15 µs more
 * CPU a batch (a hop to the runtime's blocking threads and back). Measured on a busy host (200 writes each):
 * 4 KiB took 23 µs (p99 57), 64 KiB 48 µs (p99 78), 1 MiB 360 µs (p99 1.6 ms) of a blocked event loop. 256
 * KiB keeps every batch of ordinary webhooks (64 senders at once of ~2 KB is ~130 KiB) synchronous and the
 * loop's wait near 0.1 ms; a larger batch (a large body) is written asynchronously.
 */
const SYNC_WRITE_MAX = 256 * 1024;

/** Writes all of `bytes` (synchronously when small: see {@linkcode SYNC_WRITE_MAX}). */
function writeAll(file: Deno.FsFile, bytes: Uint8Array): Promise<void> | undefined {
  if (bytes.length > SYNC_WRITE_MAX) return writeAllAsync(file, bytes);
  let off = 0;
  while (off < bytes.length) off += file.writeSync(bytes.subarray(off));
  return undefined;
}

async function writeAllAsync(file: Deno.FsFile, bytes: Uint8Array): Promise<void> {
  let off = 0;
  while (off < bytes.length) off += await file.write(bytes.subarray(off));
}

/** A write failed: what the sender is told (503) and `dev` prints, with the fix. */
function writeFailure(error: unknown, dir: string): StoreError {
  const { reason, fix } = writeFailureOf(error, dir);
  const what = error instanceof Deno.errors.PermissionDenied || error instanceof Deno.errors.NotCapable
    ? `permission denied writing the event log (${describeError(error)})`
    : reason;
  return new StoreError(`${what}: ${fix}`, { cause: error });
}

/**
 * Opens (creating it owner-only if needed) the event log for appending,
 * repairing a torn last line first.
 *
 * @example
 * ```ts
 * import { createHandler, openEventWriter, storePaths, validateConfig } from "@hooktap/hooktap/testing";
 * const writer = await openEventWriter(storePaths(".hooktap"));
 * const { endpoints } = validateConfig(
 *   { port: 0, endpoints: [{ name: "gh", path: "/gh", method: "POST" }] },
 *   null,
 * );
 * const server = Deno.serve({ port: 0 }, createHandler({ endpoints, sink: writer }));
 * ```
 */
export async function openEventWriter(
  paths: StorePaths,
  options: EventWriterOptions = {},
): Promise<EventWriter> {
  const sync = options.sync ?? true;
  const checkEveryMs = options.checkEveryMs ?? 1000;
  await ensureDataDir(paths);
  let file: Deno.FsFile;
  let size: number;
  let repairedBytes: number;
  file = await openNoFollow(paths.events, "the event log", { read: true, append: true });
  try {
    const before = (await file.stat()).size;
    repairedBytes = await repairTail(file, before);
    size = (await file.stat()).size; // a whole last line may have got its newline
  } catch (error) {
    const { reason, fix } = writeFailureOf(error, basenameOf(paths.dir));
    throw new StoreError(`Cannot open the event log ${paths.events}: ${reason}. To fix it, ${fix}.`, {
      cause: error,
    });
  }

  // Each line is encoded as it is appended, into the batch's buffer (reused batch after batch).
  const lines = new LineBuffer();
  let pendingEvents: CapturedEvent[] = [];
  // Every append of a batch waits on the batch's one promise (settled once the batch is durable or failed):
  // no promise or callback of its own per event.
  let waiting: PromiseWithResolvers<void> | null = null;
  let flushing: Promise<void> | null = null;
  let dirty = false; // a failed write may have left bytes past `size`
  let count = 0;
  let batches = 0;
  let closed = false;
  const latest = new Map<string, string>();
  const observers: ((events: readonly CapturedEvent[]) => void)[] = [];
  const presence = await watchLogPresence(paths.events, file, checkEveryMs);

  async function flushLoop(): Promise<void> {
    while (pendingEvents.length > 0) {
      const events = pendingEvents;
      const batch = waiting!;
      pendingEvents = [];
      waiting = null;
      const bytes = lines.take();
      try {
        if (presence.lost !== undefined) throw presence.lost; // every batch after the loss is refused
        if (dirty && presence.mayCut) {
          await file.truncate(size);
          dirty = false;
        }
        dirty = true;
        const writing = writeAll(file, bytes);
        if (writing !== undefined) await writing;
        if (sync) await file.syncData();
        // The path is checked once the batch is durable: a log deleted before then is not acknowledged.
        if (!presence.check()) throw presence.lost!;
        dirty = false;
      } catch (error) {
        // Cut back to the last good line (still failing: the next batch does), never a log shared now.
        if (presence.mayCut) await file.truncate(size).then(() => void (dirty = false), () => {});
        batch.reject(error === presence.lost ? error : writeFailure(error, basenameOf(paths.dir)));
        continue;
      }
      size += bytes.length;
      count += events.length;
      batches++;
      for (const e of events) latest.set(e.endpoint, e.id);
      for (const listener of observers) {
        try {
          listener(events);
        } catch { /* a listener's failure is not the sender's */ }
      }
      batch.resolve();
    }
  }

  let paused = false;

  function kick(): void {
    if (flushing !== null || paused) return;
    flushing = flushLoop().finally(() => {
      flushing = null;
      if (pendingEvents.length > 0) kick();
    });
  }

  return {
    repairedBytes,
    get count() {
      return count;
    },
    get batches() {
      return batches;
    },
    get size() {
      return size;
    },
    gone: presence.gone,
    abandon: (error) => presence.takenOver(error),
    latest,
    append(event) {
      if (closed) return Promise.reject(new StoreError("the event log is closed (hooktap dev is stopping)"));
      lines.add(event);
      pendingEvents.push(event);
      waiting ??= Promise.withResolvers<void>();
      const durable = waiting.promise;
      kick();
      return durable;
    },
    async pause(work) {
      while (paused) await new Promise((r) => setTimeout(r, 10));
      paused = true;
      presence.suspend(); // the work replaces the log: not a loss
      try {
        while (flushing !== null) await flushing;
        if (dirty) {
          await file.truncate(size);
          dirty = false;
        }
        const result = await work();
        return result;
      } finally {
        try {
          file.close();
          file = await openNoFollow(paths.events, "the event log", { read: true, append: true });
          size = (await file.stat()).size;
          latest.clear();
        } finally {
          await presence.resume(file); // a failed reopen left the closed file: no check until the next one
          paused = false;
          kick();
        }
      }
    },
    observe(listener) {
      observers.push(listener);
    },
    async close() {
      closed = true;
      presence.close();
      while (flushing !== null) await flushing;
      // A failed batch whose cut-back failed too: one last try, so no unacknowledged line outlives us.
      if (dirty && presence.mayCut) await file.truncate(size).catch(() => {});
      file.close();
    },
  };
}
