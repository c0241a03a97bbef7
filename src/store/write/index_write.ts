/**
 * Writing `.hooktap/index.json` (src/store/index_file.ts reads it), through
 * the data directory's one writer. Apart from the reading side so that a
 * command that only reads the index (`logs`) never loads the writer.
 * @module
 */
import type { StoreIndex } from "../index_file.ts";
import type { StorePaths } from "../paths.ts";
import { createTemp, writeFileReplacing } from "./no_follow.ts";

/**
 * Writes the index atomically (a temp file, then a rename).
 * @returns whether it was written; failures (no write permission, a
 * read-only disk) are swallowed: the index is only a cache.
 */
export async function writeIndex(paths: StorePaths, index: StoreIndex): Promise<boolean> {
  try {
    await writeFileReplacing(paths.index, JSON.stringify(index) + "\n");
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether this process may write the index: the permission is granted and a
 * file can be created beside it (not a read-only disk or directory). Asks
 * nothing and fails silently: the index is only a cache.
 */
export async function canWriteIndex(paths: StorePaths): Promise<boolean> {
  try {
    if ((await Deno.permissions.query({ name: "write", path: `${paths.index}.tmp` })).state !== "granted") {
      return false;
    }
    const tmp = await createTemp(paths.index);
    tmp.file.close();
    await Deno.remove(tmp.path);
    return true;
  } catch {
    return false;
  }
}
