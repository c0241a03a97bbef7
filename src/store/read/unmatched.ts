/**
 * Reading `.hooktap/unmatched.jsonl` (see src/store/write/unmatched.ts).
 * @module
 */
import type { StorePaths } from "../paths.ts";
import type { UnmatchedEntry } from "../write/unmatched.ts";

export type { UnmatchedEntry } from "../write/unmatched.ts";

function parse(line: string): UnmatchedEntry | undefined {
  try {
    const e = JSON.parse(line) as Partial<UnmatchedEntry>;
    if (typeof e.time !== "string" || typeof e.method !== "string" || typeof e.path !== "string") {
      return undefined;
    }
    if (e.status !== 404 && e.status !== 405) return undefined;
    return { query: "", ...e } as UnmatchedEntry;
  } catch {
    return undefined;
  }
}

/** The unmatched requests, oldest first, optionally only those since `since`; `[]` when there is no log. */
export async function readUnmatched(
  paths: StorePaths,
  options: { since?: Date } = {},
): Promise<UnmatchedEntry[]> {
  let text: string;
  try {
    text = await Deno.readTextFile(paths.unmatched);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
  const since = options.since?.getTime();
  const entries: UnmatchedEntry[] = [];
  for (const line of text.split("\n")) {
    const e = line === "" ? undefined : parse(line);
    if (e !== undefined && (since === undefined || Date.parse(e.time) >= since)) entries.push(e);
  }
  return entries;
}
