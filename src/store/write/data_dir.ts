/**
 * Creates the data directory on first use: owner-only, with a `.gitignore`
 * so captured payloads (which carry secrets) are never committed.
 * @module
 */
import { describeError, StoreError } from "../../errors.ts";
import type { StorePaths } from "../paths.ts";
import { basenameOf } from "../../text/path.ts";
import { writeFailureOf } from "./write_fix.ts";
import { createFileOnce, dirKindOf, linkError, makePrivateDir, readNoFollow } from "./no_follow.ts";
import { lstatIfThere, pathKind } from "./path_kind.ts";

const GITIGNORE = "# hooktap's captured webhooks carry secrets: never commit them.\n*\n";

/**
 * Refuses a data-directory path that is a symbolic link or not a regular
 * file. Deno's `--allow-write=.hooktap` checks the path, not where a link
 * points, so a link planted in `.hooktap` (a cloned repository can carry
 * one) would make hooktap append webhook payloads to, or truncate, any file
 * the user may write. A missing path is fine: it will be created.
 * @throws {StoreError} naming the path and the fix.
 */
export async function refuseLink(path: string, what: string): Promise<void> {
  let info: Deno.FileInfo | undefined;
  try {
    info = await lstatIfThere(path);
  } catch (error) {
    throw new StoreError(`Cannot check ${what} ${path}: ${describeError(error)}`, { cause: error });
  }
  if (info === undefined) return;
  const kind = pathKind(info);
  if (what === "the data directory") {
    const wrong = dirKindOf(info);
    if (wrong !== undefined) throw linkError(path, what, wrong);
  } else if (kind !== "file" && kind !== "hard link") {
    // A file with another name is not refused here: openNoFollow refuses it where a file is written.
    throw linkError(path, what, kind === "symbolic link" ? "a symbolic link" : "not a regular file");
  }
}

/** Makes sure the data directory exists, owner-only, with its `.gitignore`. */
export async function ensureDataDir(paths: StorePaths): Promise<void> {
  await refuseLink(paths.dir, "the data directory");
  try {
    await makePrivateDir(paths.dir, "the data directory");
    // Made once; one that is there already must be a file of its own (a link is refused, not written).
    if (!(await createFileOnce(paths.gitignore, GITIGNORE))) await readNoFollow(paths.gitignore, "the file");
  } catch (error) {
    if (error instanceof StoreError) throw error;
    const { reason, fix } = writeFailureOf(error, basenameOf(paths.dir));
    throw new StoreError(`Cannot set up the data directory ${paths.dir}: ${reason}. To fix it, ${fix}.`, {
      cause: error,
    });
  }
}
