/**
 * The `undelivered` filter: the ids of the forwarded events never delivered
 * (pending, or every attempt failed), from the send engine's one reader
 * (one narrow call, so the delivery-state model can change behind it).
 * @module
 */
import { findUndelivered } from "../send/undelivered.ts";
import type { StorePaths } from "../store/paths.ts";

/** The ids of the events `hooktap replay --undelivered` would send. */
export async function undeliveredIds(paths: StorePaths): Promise<Set<string>> {
  const found = await findUndelivered(paths);
  return new Set([...found.pending, ...found.failed].map((e) => e.id));
}
