/**
 * What a path is, as the link refusals tell it apart: the store's (never
 * writing through a link under `.hooktap`, ./no_follow.ts and
 * ./data_dir.ts) and the hub's (its `--kv` file, src/hub/kv_file.ts). One
 * classifier, so that the two cannot come to disagree on what a link is;
 * each keeps its own messages and what it refuses.
 * @module
 */

/**
 * What `lstat` found at a path: a symbolic link (dangling or not), a regular
 * file with more than one name (a hard link), a regular file of its own, a
 * directory, or anything else (a FIFO, a socket, a device).
 */
export type PathKind = "symbolic link" | "hard link" | "file" | "directory" | "other";

/** The kind of the path `info` (from `Deno.lstat`, never `Deno.stat`: a link must not be followed) tells. */
export function pathKind(info: Deno.FileInfo): PathKind {
  if (info.isSymlink) return "symbolic link";
  if (info.isDirectory) return "directory";
  if (!info.isFile) return "other";
  return (info.nlink ?? 1) > 1 ? "hard link" : "file";
}

/**
 * `Deno.lstat(path)`, or `undefined` when nothing is there.
 * @throws the error of `lstat` for any other failure (no permission, not a directory on the way).
 */
export async function lstatIfThere(path: string): Promise<Deno.FileInfo | undefined> {
  try {
    return await Deno.lstat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}
