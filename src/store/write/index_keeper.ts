/**
 * `hooktap dev`'s side of `.hooktap/index.json`: it starts from the index
 * already on disk (or rebuilds it in the background from the log), adds the
 * events the writer appends, and writes it at most once per interval when it
 * changed, and once more at shutdown.
 * @module
 */
import { newestPerEndpoint, readIndex } from "../index_file.ts";
import { writeIndex } from "./index_write.ts";
import type { StorePaths } from "../paths.ts";
import type { EventWriter } from "./writer.ts";

/** Options of {@linkcode keepIndex}. */
export interface KeepIndexOptions {
  /**
   * Shortest time between two writes of the index, in milliseconds.
   * @default 1000
   */
  intervalMs?: number;
  /**
   * How long `close()` lets a rebuild that is still running finish, in milliseconds.
   * @default 2000
   */
  closeGraceMs?: number;
}

/** A running index keeper. */
export interface IndexKeeper {
  /** The log is being replaced (compaction): write nothing until {@linkcode IndexKeeper.rebase}. */
  suspend(): void;
  /** The log was replaced: `latest` is what the new one holds before the writer's appends. */
  rebase(latest: ReadonlyMap<string, string>): void;
  /** Stops it; writes the index a last time if it is complete. Call after the writer is closed. */
  close(): Promise<void>;
}

/** What the log held before this writer appended anything, per endpoint. */
async function _baseline(paths: StorePaths, end: number, signal: AbortSignal): Promise<Map<string, string>> {
  using file = await Deno.open(paths.events, { read: true });
  const index = await readIndex(paths, file, end);
  const start = index?.size ?? 0;
  const scan = await newestPerEndpoint(file, end, { start, signal, background: true });
  if (!scan.complete) throw new Error("aborted");
  return new Map([...Object.entries(index?.latest ?? {}), ...scan.latest]);
}

/**
 * Keeps `.hooktap/index.json` in step with `writer`. Call right after
 * opening the writer, before anything is appended.
 */
export function keepIndex(
  paths: StorePaths,
  writer: EventWriter,
  options: KeepIndexOptions = {},
): IndexKeeper {
  const openSize = writer.size;
  const stop = new AbortController();
  let base: Map<string, string> | undefined;
  let replaced = false; // the log was compacted: the first scan describes a file that is gone
  let written = -1;
  const ready = _baseline(paths, openSize, stop.signal).then(
    (b) => void (replaced ? undefined : (base = b)),
    () => {}, // unreadable log or stopped early: no index this session; readers scan.
  );
  const flush = async () => {
    if (base === undefined || writer.size === written) return;
    const size = writer.size; // read with `latest` in the same turn: they change together
    const latest = Object.fromEntries([...base, ...writer.latest]);
    if (await writeIndex(paths, { v: 1, size, latest })) written = size;
  };
  let busy: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    busy = busy.then(flush);
  }, options.intervalMs ?? 1000);
  Deno.unrefTimer(timer);
  return {
    suspend() {
      replaced = true;
      stop.abort(); // a rebuild of the old log still running is worth nothing now
      base = undefined;
    },
    rebase(latest) {
      base = new Map(latest);
      written = -1;
    },
    async close() {
      clearInterval(timer);
      // Let a rebuild still running finish if it is nearly done; never hold shutdown long.
      let grace: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        ready,
        new Promise<void>((r) => (grace = setTimeout(r, options.closeGraceMs ?? 2000))),
      ]);
      clearTimeout(grace);
      stop.abort();
      await ready;
      await busy;
      await flush();
    },
  };
}
