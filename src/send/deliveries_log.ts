/**
 * The deliveries log's appender: one JSON line per attempt in
 * `.hooktap/deliveries.jsonl`. Lines appended before the next microtask
 * checkpoint share one write, made with synchronous calls
 * (`flock`, `write`, `flock`: three syscalls, where the async ones cost a
 * thread hand-off and an fd dup/close each, measured with `strace -c`); the
 * exclusive `flock` lets `hooktap replay` and `hooktap dev` append at the
 * same time. A torn last line left by a
 * crash is closed with a newline before the first append, so it never glues
 * onto a good line. Not fsynced: a lost record only means an event is
 * delivered again (at least once), never that one is forgotten.
 * @module
 */
import { describeError, StoreError } from "../errors.ts";
import type { DeliveryRecord } from "../event/delivery.ts";
import { createIdFactory } from "../event/id.ts";
import { openNoFollow } from "../store/write/no_follow.ts";

/** An open deliveries log. */
export interface DeliveriesLog {
  /** A new delivery id, `dlv_<YYYYMMDD>_<ULID>`. */
  newId(date: Date): string;
  /** Appends one record; resolves once written. */
  append(record: DeliveryRecord): Promise<void>;
  /** Waits for pending appends and closes the file. */
  close(): Promise<void>;
}

const encoder = new TextEncoder();
/** The buffer batches are encoded into (one batch at a time: the write is synchronous), grown as needed. */
let out = new Uint8Array(16 * 1024);

/**
 * `lines`, each followed by a newline (and led by one when `lead`), as UTF-8 in {@linkcode out}: a view valid
 * until the next call. Encoded in place, not joined into one string and encoded into a new array (~1 KB of
 * heap per delivery: bench/forward_alloc.ts).
 */
function encodeLines(lines: readonly string[], lead: boolean): Uint8Array {
  if (out.length > 1024 * 1024) out = new Uint8Array(16 * 1024); // a huge batch's buffer is not kept
  let at = 0;
  if (lead) out[at++] = 0x0a;
  for (const line of lines) {
    // A UTF-16 unit is at most 3 bytes of UTF-8; room for it and the newline, or a buffer that has it.
    if (out.length - at < line.length * 3 + 1) {
      const bigger = new Uint8Array(Math.max(out.length * 2, at + line.length * 3 + 1));
      bigger.set(out.subarray(0, at));
      out = bigger;
    }
    at += encoder.encodeInto(line, out.subarray(at)).written;
    out[at++] = 0x0a;
  }
  return out.subarray(0, at);
}

/**
 * Opens (creating it owner-only) the deliveries log at `path`.
 * @throws {StoreError} when it cannot be opened.
 */
export async function openDeliveriesLog(path: string): Promise<DeliveriesLog> {
  const file = await openNoFollow(path, "the deliveries log", { read: true, append: true });
  let needsNewline = false;
  try {
    const size = (await file.stat()).size;
    if (size > 0) {
      const last = new Uint8Array(1);
      await file.seek(size - 1, Deno.SeekMode.Start);
      await file.read(last);
      needsNewline = last[0] !== 0x0a;
    }
  } catch (error) {
    throw new StoreError(`Cannot open the deliveries log ${path}: ${describeError(error)}.`, {
      cause: error,
    });
  }
  const ids = createIdFactory("dlv");
  let pending: string[] = [];
  /** The lines of one batch share one promise (a promise and two functions per line were ~0.3 KB of heap). */
  let batch: PromiseWithResolvers<void> | undefined;
  let closed = false;

  function flush(): void {
    const waiting = batch;
    batch = undefined;
    if (pending.length === 0) return waiting?.resolve();
    const lines = pending;
    pending = [];
    try {
      const bytes = encodeLines(lines, needsNewline);
      file.lockSync(true);
      try {
        let off = 0;
        while (off < bytes.length) off += file.writeSync(bytes.subarray(off));
      } finally {
        file.unlockSync();
      }
      needsNewline = false;
      waiting?.resolve();
    } catch (error) {
      const failure = new StoreError(`cannot write the deliveries log: ${describeError(error)}`, {
        cause: error,
      });
      waiting?.reject(failure);
    }
  }

  return {
    newId: ids,
    append(record) {
      if (closed) return Promise.reject(new StoreError("the deliveries log is closed"));
      pending.push(JSON.stringify(record));
      if (batch === undefined) {
        batch = Promise.withResolvers<void>();
        queueMicrotask(flush);
      }
      return batch.promise;
    },
    close() {
      closed = true;
      flush();
      file.close();
      return Promise.resolve();
    },
  };
}
