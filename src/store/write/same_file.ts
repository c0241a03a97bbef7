/**
 * Whether a path still names a file held open: the event log (deleted or
 * moved away while dev writes it) and the writer lock (deleted, thought
 * stale) are both checked this way.
 * @module
 */

/** An open file's device and inode. */
export interface FileIdentity {
  dev: number;
  ino: number;
}

/** The open `file`'s device and inode; `undefined` where the platform has no inode numbers (Windows). */
export async function fileIdentity(file: Deno.FsFile): Promise<FileIdentity | undefined> {
  const info = await file.stat();
  return info.ino === null ? undefined : { dev: info.dev, ino: info.ino };
}

/**
 * What `path` names now, beside the open `file` whose identity was `id`: `"same"` file, an `"other"` one,
 * nothing (`"missing"`), or `"unknown"` (it cannot be looked at: permissions). Where inode numbers are not
 * stable (some network or VM filesystems) the same file can show another one: it is the same when the open
 * file still has a name and the path's size and modification time.
 */
export async function pathNames(
  path: string,
  file: Deno.FsFile,
  id: FileIdentity,
): Promise<"same" | "other" | "missing" | "unknown"> {
  try {
    const there = await Deno.lstat(path);
    if (there.dev === id.dev && there.ino === id.ino) return "same";
    const own = await file.stat();
    return own.nlink !== 0 && own.size === there.size && own.mtime?.getTime() === there.mtime?.getTime()
      ? "same"
      : "other";
  } catch (error) {
    return error instanceof Deno.errors.NotFound ? "missing" : "unknown";
  }
}

/**
 * {@linkcode pathNames} with synchronous calls: the event log's writer asks it once per batch, where an
 * asynchronous `lstat` cost ~14 µs of CPU (a hop to the runtime's blocking threads and back) against ~2.5.
 */
export function pathNamesSync(
  path: string,
  file: Deno.FsFile,
  id: FileIdentity,
): "same" | "other" | "missing" | "unknown" {
  try {
    const there = Deno.lstatSync(path);
    if (there.dev === id.dev && there.ino === id.ino) return "same";
    const own = file.statSync();
    return own.nlink !== 0 && own.size === there.size && own.mtime?.getTime() === there.mtime?.getTime()
      ? "same"
      : "other";
  } catch (error) {
    return error instanceof Deno.errors.NotFound ? "missing" : "unknown";
  }
}
