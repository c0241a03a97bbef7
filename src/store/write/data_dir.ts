/**
 * Creates the data directory on first use: owner-only, with a `.gitignore`
 * so captured payloads (which carry secrets) are never committed.
 * @module
 */
import { describeError, StoreError } from "../../errors.ts";
import type { StorePaths } from "../paths.ts";
import { basenameOf } from "../../text/path.ts";
import { writeFailureOf } from "./write_fix.ts";
import { createFileOnce, makePrivateDir, readNoFollow } from "./no_follow.ts";

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
  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw new StoreError(`Cannot check ${what} ${path}: ${describeError(error)}`, { cause: error });
  }
  const wantDir = what === "the data directory";
  if (info.isSymlink || (wantDir ? !info.isDirectory : !info.isFile)) {
    const kind = info.isSymlink ? "a symbolic link" : wantDir ? "not a directory" : "not a regular file";
    throw new StoreError(
      `${what[0]!.toUpperCase()}${
        what.slice(1)
      } ${path} is ${kind}. hooktap only writes to files it creates ` +
        `inside .hooktap and never follows links there (one could point anywhere). ` +
        `Remove it (rm ${path}) if you did not put it there, then start again.`,
    );
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
