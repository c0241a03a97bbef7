/**
 * Runs a compaction as the log's one writer: inside `hooktap dev` with its
 * writer paused, or, when no `dev` runs, by taking the writer lock; when a
 * `dev` holds the lock, by asking it over its control socket.
 * @module
 */
import { newestPerEndpoint, readIndex } from "../index_file.ts";
import type { StorePaths } from "../paths.ts";
import { compactLog, type CompactPlan, type CompactResult } from "./compact.ts";
import { type ControlClientOptions, requestCompaction } from "./control.ts";
import type { IndexKeeper } from "./index_keeper.ts";
import { acquireWriterLock, LockHeldError } from "./lock.ts";
import { completeLastLine } from "./repair.ts";
import type { EventWriter } from "./writer.ts";

/** `dev`'s side: compacts with `writer` paused, then points the index keeper at the new log. */
export async function compactWhileWriting(
  paths: StorePaths,
  writer: EventWriter,
  index: IndexKeeper,
  plan: CompactPlan,
): Promise<CompactResult> {
  // On failure the keeper stays suspended: the index on disk still fits the old log, which is still there.
  const result = await writer.pause(() => {
    index.suspend();
    return compactLog(paths, plan, { end: writer.size });
  });
  if (result.unchanged) index.rebase(await _latestOf(paths));
  else index.rebase(result.latest);
  return result;
}

async function _latestOf(paths: StorePaths): Promise<Map<string, string>> {
  using file = await Deno.open(paths.events, { read: true });
  const size = (await file.stat()).size;
  const index = await readIndex(paths, file, size);
  const scan = await newestPerEndpoint(file, size, { start: index?.size ?? 0 });
  return new Map([...Object.entries(index?.latest ?? {}), ...scan.latest]);
}

/** Where a compaction ran. */
export type CompactedBy = "this process" | "hooktap dev";

/**
 * Compacts the log of `paths` as its one writer: itself under the writer
 * lock, or through the running `hooktap dev` (waiting a bounded time, and
 * no longer once `options.signal` aborts).
 */
export async function compactStore(
  paths: StorePaths,
  plan: CompactPlan,
  options: ControlClientOptions = {},
): Promise<{ result: Omit<CompactResult, "latest">; by: CompactedBy }> {
  let lock;
  try {
    lock = await acquireWriterLock(paths, plan.ids !== undefined || plan.all ? "rm" : "prune");
  } catch (error) {
    // Only a `dev` takes a compaction over its control socket: another prune or rm is waited for by the user.
    if (!(error instanceof LockHeldError)) throw error;
    if (error.holder?.command !== undefined && error.holder.command !== "dev") throw error;
    return { result: await requestCompaction(paths, plan, options), by: "hooktap dev" };
  }
  try {
    await completeLastLine(paths.events); // a whole last record that lacks its newline is kept, not cut as torn
    const { latest: _, ...result } = await compactLog(paths, plan);
    return { result, by: "this process" };
  } finally {
    lock.release();
  }
}
