/**
 * Opening files under `.hooktap/` without ever following a link. Deno's
 * `Deno.open` has no `O_NOFOLLOW`, so:
 *
 * - an existing file is checked with `lstat` (a link, or anything but a
 *   regular file with one name, is refused), opened WITHOUT `create` or
 *   `truncate`, then the open handle's `stat` is compared with a second
 *   `lstat` of the path (same device and inode, one link): a link swapped in
 *   between the check and the open is caught before a byte is written;
 * - a missing file is created with `createNew` (`O_CREAT|O_EXCL`, which
 *   fails on any link, dangling ones included);
 * - whole-file writes go to a temp file with an unpredictable name created
 *   with `createNew`, then renamed over the path (a rename replaces a link,
 *   never writes through it).
 *
 * The residual race: a link swapped in between the `lstat` and the open makes
 * the open follow it (with append or read-write access, no truncation, no
 * creation) before the inode check closes it again; nothing is written
 * through it, but opening a FIFO there could block.
 * @module
 */
import { describeError, StoreError } from "../../errors.ts";

/** How to open. */
export interface NoFollowMode {
  read?: boolean;
  write?: boolean;
  append?: boolean;
}

function linkError(path: string, what: string, kind: string): StoreError {
  return new StoreError(
    `${what[0]!.toUpperCase()}${what.slice(1)} ${path} is ${kind}. hooktap only writes to files it creates ` +
      `inside .hooktap and never follows links there (one could point anywhere). ` +
      `Remove it (rm ${path}) if you did not put it there, then start again.`,
  );
}

function kindOf(info: Deno.FileInfo): string | undefined {
  if (info.isSymlink) return "a symbolic link";
  if (!info.isFile) return "not a regular file";
  if ((info.nlink ?? 1) > 1) return "a file with another name (a hard link)";
  return undefined;
}

/**
 * Opens `path` (creating it owner-only when missing) refusing links.
 * @throws {StoreError} naming the link and the fix, or why it cannot be opened.
 */
export async function openNoFollow(path: string, what: string, mode: NoFollowMode): Promise<Deno.FsFile> {
  for (let attempt = 0; attempt < 3; attempt++) {
    let before: Deno.FileInfo | undefined;
    try {
      before = await Deno.lstat(path);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) {
        throw new StoreError(`Cannot check ${what} ${path}: ${describeError(error)}`, { cause: error });
      }
    }
    if (before === undefined) {
      try {
        return await Deno.open(path, { ...mode, createNew: true, mode: 0o600 });
      } catch (error) {
        if (error instanceof Deno.errors.AlreadyExists) continue; // created meanwhile (or a link): look again
        throw new StoreError(`Cannot create ${what} ${path}: ${describeError(error)}`, { cause: error });
      }
    }
    const kind = kindOf(before);
    if (kind !== undefined) throw linkError(path, what, kind);
    let file: Deno.FsFile;
    try {
      file = await Deno.open(path, mode);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) continue;
      throw new StoreError(`Cannot open ${what} ${path}: ${describeError(error)}`, { cause: error });
    }
    try {
      const opened = await file.stat();
      const now = await Deno.lstat(path);
      const swapped = kindOf(now) ?? kindOf(opened);
      if (swapped !== undefined) throw linkError(path, what, swapped);
      if (opened.ino !== now.ino || opened.dev !== now.dev) {
        throw linkError(path, what, "a link swapped in while hooktap opened it");
      }
      return file;
    } catch (error) {
      file.close();
      throw error instanceof StoreError ? error : new StoreError(
        `Cannot open ${what} ${path}: ${describeError(error)}`,
        { cause: error },
      );
    }
  }
  throw new StoreError(`Cannot open ${what} ${path}: it keeps changing while hooktap opens it.`);
}

/** A temp file beside `path` with an unpredictable name, created exclusively (never through a link). */
export async function createTemp(path: string): Promise<{ path: string; file: Deno.FsFile }> {
  const tmp = `${path}.${crypto.randomUUID()}.tmp`;
  return { path: tmp, file: await Deno.open(tmp, { write: true, createNew: true, mode: 0o600 }) };
}

/** Writes `data` to an exclusive temp file, then renames it over `path` (which may be a link: it is replaced). */
export async function writeFileReplacing(path: string, data: Uint8Array | string): Promise<void> {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  const tmp = await createTemp(path);
  try {
    try {
      for (let done = 0; done < bytes.length;) done += await tmp.file.write(bytes.subarray(done));
    } finally {
      tmp.file.close();
    }
    await Deno.rename(tmp.path, path);
  } catch (error) {
    await Deno.remove(tmp.path).catch(() => {});
    throw error;
  }
}
