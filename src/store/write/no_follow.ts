/**
 * The one way hooktap writes under `.hooktap/` (every file of
 * {@linkcode dataFileNames}, their temp files, and the directory itself),
 * never following a link there. Deno's `Deno.open` has no `O_NOFOLLOW`, so:
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
 * - a file made once and then only read (the trigger keys) is written to a
 *   temp file and hard-linked to its name (`link` fails when anything is
 *   there): of two processes making it at once, one wins and the other reads
 *   the winner's file, so nobody signs with keys the file does not hold;
 * - files are owner-only (0600), the directory too (0700).
 *
 * tests/fault/links_test.ts plants a link (and a hard link) at every path
 * and checks that only this module (and the user-file writer beside it) writes
 * files in `src/`.
 *
 * The residual race: a link swapped in between the `lstat` and the open makes
 * the open follow it (with append or read-write access, no truncation, no
 * creation) before the inode check closes it again; nothing is written
 * through it, but opening a FIFO there could block.
 * @module
 */
import { basenameOf, dirnameOf } from "../../text/path.ts";
import { writeFailureOf } from "./write_fix.ts";
import { describeError, StoreError } from "../../errors.ts";
import { pathKind } from "./path_kind.ts";

/** How to open. */
export interface NoFollowMode {
  read?: boolean;
  write?: boolean;
  append?: boolean;
  /** Only create (fails when anything, a link included, is at the path). */
  createNew?: boolean;
}

/**
 * The error for `what` at `path` that is `kind` (`a symbolic link`, `not a directory`...): hooktap never
 * writes through a link under `.hooktap`.
 */
export function linkError(path: string, what: string, kind: string): StoreError {
  return new StoreError(
    `${what[0]!.toUpperCase()}${what.slice(1)} ${path} is ${kind}. hooktap only writes to files it creates ` +
      `inside .hooktap and never follows links there (one could point anywhere). ` +
      `Remove it (rm ${path}) if you did not put it there, then start again.`,
  );
}

/** What is wrong with the path `info` tells, for {@linkcode linkError}; `undefined` for a file of its own. */
function kindOf(info: Deno.FileInfo): string | undefined {
  switch (pathKind(info)) {
    case "file":
      return undefined;
    case "symbolic link":
      return "a symbolic link";
    case "hard link":
      return "a file with another name (a hard link)";
    default:
      return "not a regular file";
  }
}

/** What is wrong with a directory's path `info` tells, for {@linkcode linkError}; `undefined` for a directory. */
export function dirKindOf(info: Deno.FileInfo): string | undefined {
  const kind = pathKind(info);
  if (kind === "directory") return undefined;
  return kind === "symbolic link" ? "a symbolic link" : "not a directory";
}

/** Why a write or an open failed, and the fix. */
function _withFix(error: unknown, path: string): string {
  const { reason, fix } = writeFailureOf(error, basenameOf(dirnameOf(path)));
  return `${reason}. To fix it, ${fix}.`;
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
    if (before === undefined || mode.createNew) {
      try {
        return await Deno.open(path, { ...mode, createNew: true, mode: 0o600 });
      } catch (error) {
        if (error instanceof Deno.errors.AlreadyExists && !mode.createNew) continue; // created meanwhile: again
        throw new StoreError(`Cannot create ${what} ${path}: ${_withFix(error, path)}`, { cause: error });
      }
    }
    const kind = kindOf(before);
    if (kind !== undefined) throw linkError(path, what, kind);
    let file: Deno.FsFile;
    try {
      file = await Deno.open(path, mode);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) continue;
      throw new StoreError(`Cannot open ${what} ${path}: ${_withFix(error, path)}`, { cause: error });
    }
    try {
      const opened = await file.stat();
      const now = await Deno.lstat(path);
      const swapped = kindOf(now) ?? kindOf(opened);
      if (swapped !== undefined) throw linkError(path, what, swapped);
      if (opened.ino !== now.ino || opened.dev !== now.dev) {
        throw linkError(path, what, "a link swapped in while hooktap opened it");
      }
      if (mode.write || mode.append) await ownerOnly(path, opened);
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

/**
 * Makes an existing file owner-only (Deno has no `fchmod`): by path, only while the path is still the
 * opened file (same device and inode, not a link); a file that already is owner-only is left alone.
 */
async function ownerOnly(path: string, opened: Deno.FileInfo): Promise<void> {
  if (opened.mode === null || (opened.mode & 0o077) === 0) return;
  const now = await Deno.lstat(path).catch(() => undefined);
  if (now === undefined || now.isSymlink || now.ino !== opened.ino || now.dev !== opened.dev) return;
  await Deno.chmod(path, 0o600).catch(() => {});
}

/** A temp file beside `path` with an unpredictable name, created exclusively (never through a link). */
export async function createTemp(path: string): Promise<{ path: string; file: Deno.FsFile }> {
  const tmp = `${path}.${crypto.randomUUID()}.tmp`;
  return { path: tmp, file: await Deno.open(tmp, { write: true, createNew: true, mode: 0o600 }) };
}

async function writeTemp(path: string, data: Uint8Array | string, sync: boolean): Promise<string> {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  const tmp = await createTemp(path);
  try {
    try {
      for (let done = 0; done < bytes.length;) done += await tmp.file.write(bytes.subarray(done));
      if (sync) await tmp.file.syncData();
    } finally {
      tmp.file.close();
    }
  } catch (error) {
    await Deno.remove(tmp.path).catch(() => {});
    throw error;
  }
  return tmp.path;
}

/**
 * Writes `data` to an exclusive temp file, then renames it over `path` (which may be a link: it is
 * replaced): readers see the old file or the new one, never half of one.
 */
export async function writeFileReplacing(
  path: string,
  data: Uint8Array | string,
  options: { sync?: boolean } = {},
): Promise<void> {
  const tmp = await writeTemp(path, data, options.sync ?? false);
  try {
    await Deno.rename(tmp, path);
  } catch (error) {
    await Deno.remove(tmp).catch(() => {});
    throw error;
  }
}

/**
 * `writeFileReplacing`, synchronous (for a part that starts synchronously: the inspector's token files).
 * The temp file is exclusive and unpredictable; the rename replaces a link planted at `path`, never
 * writes through it.
 */
export function writeFileReplacingSync(path: string, data: Uint8Array | string): void {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  const tmp = `${path}.${crypto.randomUUID()}.tmp`;
  const file = Deno.openSync(tmp, { write: true, createNew: true, mode: 0o600 });
  try {
    try {
      for (let done = 0; done < bytes.length;) done += file.writeSync(bytes.subarray(done));
    } finally {
      file.close();
    }
    Deno.renameSync(tmp, path);
  } catch (error) {
    try {
      Deno.removeSync(tmp);
    } catch { /* already gone */ }
    throw error;
  }
}

/**
 * Creates `path` with `data` unless something is already there (a file, a link, anything): the data is
 * synced in a temp file, then hard-linked to `path`, which fails rather than replace or follow what is
 * there. Of two processes creating it at once, exactly one returns `true`.
 * @returns whether this call created it.
 */
export async function createFileOnce(path: string, data: Uint8Array | string): Promise<boolean> {
  const tmp = await writeTemp(path, data, true);
  try {
    await Deno.link(tmp, path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.AlreadyExists) return false;
    throw error;
  } finally {
    await Deno.remove(tmp).catch(() => {});
  }
}

/**
 * Reads `path` as text without following a link (a link, or anything but a regular file, is refused).
 * @returns `undefined` when nothing is there.
 * @throws {StoreError} naming the link and the fix.
 */
export async function readNoFollow(path: string, what: string): Promise<string | undefined> {
  try {
    await Deno.lstat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw new StoreError(`Cannot check ${what} ${path}: ${describeError(error)}`, { cause: error });
  }
  for (let attempt = 0;; attempt++) {
    let file: Deno.FsFile;
    try {
      file = await openNoFollow(path, what, { read: true });
    } catch (error) {
      // createFileOnce's temp name is removed just after its link: a moment with two names.
      if (attempt < 5 && error instanceof StoreError && /hard link/.test(error.message)) {
        await new Promise((r) => setTimeout(r, 20));
        continue;
      }
      throw error;
    }
    try {
      const parts: Uint8Array[] = [];
      const buf = new Uint8Array(64 * 1024);
      for (let n = await file.read(buf); n !== null; n = await file.read(buf)) parts.push(buf.slice(0, n));
      return new TextDecoder().decode(await new Blob(parts as BlobPart[]).bytes());
    } finally {
      file.close();
    }
  }
}

/**
 * `makePrivateDir`, synchronous.
 * @throws {StoreError} when `dir` is a link or not a directory.
 */
export function makePrivateDirSync(dir: string, what: string): void {
  const check = () => {
    let info: Deno.FileInfo | undefined;
    try {
      info = Deno.lstatSync(dir);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    const kind = info === undefined ? undefined : dirKindOf(info);
    if (kind !== undefined) throw linkError(dir, what, kind);
    return info;
  };
  if (check() === undefined) Deno.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const now = check(); // a link planted between the check and mkdir
  if (now !== undefined && now.mode !== null && (now.mode & 0o077) !== 0) Deno.chmodSync(dir, 0o700);
}

/**
 * Makes the directory `dir` owner-only (0700), refusing a link there.
 * @throws {StoreError} when `dir` is a link or not a directory.
 */
export async function makePrivateDir(dir: string, what: string): Promise<void> {
  const check = async () => {
    const info = await Deno.lstat(dir).catch((error) => {
      if (error instanceof Deno.errors.NotFound) return undefined;
      throw error;
    });
    const kind = info === undefined ? undefined : dirKindOf(info);
    if (kind !== undefined) throw linkError(dir, what, kind);
    return info;
  };
  const before = await check();
  if (before === undefined) await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  const now = await check(); // a link planted between the check and mkdir
  if (now !== undefined && now.mode !== null && (now.mode & 0o077) !== 0) await Deno.chmod(dir, 0o700);
}
