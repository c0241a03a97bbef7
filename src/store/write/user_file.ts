/**
 * A file the user names (`export -o FILE`, `dev --ready-file FILE`): never
 * inside the data directory (real paths compared, so a link or `..` cannot
 * sneak it in), written to an exclusive temp file beside it and renamed over
 * it when complete, owner-only (0600) whatever was there before. When Deno
 * may not write a temp file beside it (the npm package grants
 * `--allow-write=FILE` exactly; `deno install`'s shim grants neither), the
 * file is written in place, so Deno allows, asks or refuses for FILE itself:
 * then only a regular file with one name is written (a link is refused), it
 * is opened without truncation, and the opened file (device and inode) is
 * checked against every file of the data directory before a byte is cut.
 * A hard link to the event log is refused whichever way the file is written.
 * @module
 */
import { UsageError } from "../../errors.ts";
import { basenameOf, dirnameOf, joinPath, resolvePath } from "../../text/path.ts";
import { createTemp } from "./no_follow.ts";

async function realOrSelf(path: string): Promise<string> {
  try {
    return await Deno.realPath(path);
  } catch {
    return path;
  }
}

/** Where `path` really points: the real path of the file, or of its folder plus its name when it is missing. */
async function realTarget(path: string): Promise<string> {
  try {
    return await Deno.realPath(path);
  } catch {
    return resolvePath(await realOrSelf(dirnameOf(path)), basenameOf(path));
  }
}

/** A path to suggest for each option that names a file. */
const EXAMPLE: Record<string, string> = { "--ready-file": "ready.json", "--output": "export.jsonl" };

function insideError(path: string, dataDir: string, option: string, how: string): UsageError {
  return new UsageError(
    `${option} ${path} ${how} hooktap's data directory ${dataDir}: writing there could destroy ` +
      `the stored events. Write somewhere else, like ${option} ${EXAMPLE[option] ?? "hooktap.config.ts"}.`,
  );
}

/** Device and inode of every file in `dataDir` (its entries, never followed). */
async function storeInodes(dataDir: string): Promise<Set<string>> {
  const inodes = new Set<string>();
  try {
    for await (const entry of Deno.readDir(dataDir)) {
      const info = await Deno.lstat(joinPath(dataDir, entry.name)).catch(() => undefined);
      if (info?.ino != null) inodes.add(`${info.dev}:${info.ino}`);
    }
  } catch { /* no data directory (or not readable): nothing of it to protect here */ }
  return inodes;
}

function isStoreFile(info: Deno.FileInfo, inodes: Set<string>): boolean {
  return info.ino != null && inodes.has(`${info.dev}:${info.ino}`);
}

/**
 * Refuses `path` when it is, or lies inside, the data directory `dataDir` (real paths compared), or is
 * another name of one of its files (a hard link: device and inode compared).
 * @throws {UsageError} naming the path and the fix.
 */
export async function refuseInsideStore(path: string, dataDir: string, option: string): Promise<void> {
  const target = await realTarget(path);
  const store = await realOrSelf(dataDir);
  if (target === store || target.startsWith(store.endsWith("/") ? store : store + "/")) {
    throw insideError(path, dataDir, option, "is inside");
  }
  const info = await Deno.stat(path).catch(() => undefined);
  if (info !== undefined && isStoreFile(info, await storeInodes(dataDir))) {
    throw insideError(path, dataDir, option, "is another name (a hard link) of a file in");
  }
}

/**
 * Refuses a user-named file path that is a folder: writing it would rename a temp file over the folder (an
 * `IsADirectory` crash, the temp left beside it).
 * @throws {UsageError} naming the option and a file path in that folder.
 */
async function refuseFolder(abs: string, option: string): Promise<void> {
  const info = await Deno.stat(abs).catch(() => undefined);
  if (info?.isDirectory !== true) return;
  throw new UsageError(
    `${option} ${abs} is a folder: give the path of a file to write, like ${joinPath(abs, "export.jsonl")}.`,
  );
}

/** A user-named file being written. */
export interface UserFile {
  readonly file: Deno.FsFile;
  /** Closes the temp file and renames it over the path. */
  commit(): Promise<void>;
  /** Closes and removes the temp file (the path is left as it was). */
  abort(): Promise<void>;
}

/** Whether Deno lets hooktap write `path` without asking (a grant of FILE alone does not cover a temp beside it). */
function granted(path: string): boolean {
  return Deno.permissions.querySync({ name: "write", path }).state === "granted";
}

/**
 * `path` opened in place (0600): when only the file itself may be written. A missing file is created
 * exclusively; an existing one must be a regular file with one name, is opened without truncation, and
 * is cut to nothing only once the opened file is known to be no file of `dataDir`.
 * @throws {UsageError} when it is a link, has another name, or is a file of the data directory.
 */
async function openInPlace(path: string, dataDir: string, option: string): Promise<UserFile> {
  let file: Deno.FsFile | undefined;
  const before = await Deno.lstat(path).catch(() => undefined);
  if (before === undefined) {
    file = await Deno.open(path, { write: true, createNew: true, mode: 0o600 });
  } else {
    if (before.isSymlink) {
      throw new UsageError(
        `${option} ${path} is a symbolic link: hooktap may write only that path here and does not write ` +
          `through links. Name the file itself (${option} ${await realTarget(path)}), or remove the link.`,
      );
    }
    if (!before.isFile) throw new UsageError(`${option} ${path} is not a regular file. Name a file.`);
    if ((before.nlink ?? 1) > 1) {
      if (isStoreFile(before, await storeInodes(dataDir))) {
        throw insideError(path, dataDir, option, "is another name (a hard link) of a file in");
      }
      throw new UsageError(
        `${option} ${path} has another name (a hard link): writing it in place would change that file ` +
          `too. Remove it first (rm ${path}), or write somewhere else.`,
      );
    }
    file = await Deno.open(path, { write: true });
    try {
      const opened = await file.stat();
      if (opened.ino !== before.ino || opened.dev !== before.dev || (opened.nlink ?? 1) > 1) {
        throw new UsageError(`${option} ${path} changed while hooktap opened it. Run again.`);
      }
      if (isStoreFile(opened, await storeInodes(dataDir))) {
        throw insideError(path, dataDir, option, "is another name (a hard link) of a file in");
      }
      await file.truncate(0);
      if (opened.mode !== null && (opened.mode & 0o077) !== 0) await Deno.chmod(path, 0o600).catch(() => {});
    } catch (error) {
      file.close();
      throw error;
    }
  }
  let open = true;
  const close = () => {
    if (open) {
      open = false;
      try {
        file.close();
      } catch { /* closed by its writable stream */ }
    }
  };
  return {
    file,
    commit() {
      close();
      return Promise.resolve();
    },
    async abort() {
      close();
      await Deno.remove(path).catch(() => {}); // half an export is worse than none
    },
  };
}

/**
 * Writes `text` to the user-named `path`: a temp file renamed over it, or in place when only it may be
 * written; never inside the data directory `dataDir` or onto one of its files.
 * @throws {UsageError} when the path is, or is in, the data directory or one of its files.
 */
export async function writeUserFile(
  path: string,
  text: string,
  dataDir: string,
  option: string,
): Promise<void> {
  await refuseInsideStore(path, dataDir, option);
  await refuseFolder(path, option);
  const out = granted(`${path}.tmp`) ? await startTemp(path) : await openInPlace(path, dataDir, option);
  try {
    const bytes = new TextEncoder().encode(text);
    for (let done = 0; done < bytes.length;) done += await out.file.write(bytes.subarray(done));
  } catch (error) {
    await out.abort();
    throw error;
  }
  await out.commit();
}

/**
 * Starts writing `path` (resolved from `cwd`), refusing a path inside `dataDir`.
 * @throws {UsageError} when the path is inside the data directory.
 * @throws the error of creating the temp file (permission, missing folder).
 */
export async function openUserFile(
  cwd: string,
  path: string,
  dataDir: string,
  option: string,
): Promise<UserFile> {
  const abs = resolvePath(cwd, path);
  await refuseInsideStore(abs, dataDir, option);
  await refuseFolder(abs, option);
  return granted(`${abs}.tmp`) ? await startTemp(abs) : await openInPlace(abs, dataDir, option);
}

/** `abs` written through an exclusive temp file beside it, renamed over it on commit. */
async function startTemp(abs: string): Promise<UserFile> {
  const tmp = await createTemp(abs);
  let open = true;
  const close = () => {
    if (open) {
      open = false;
      try {
        tmp.file.close();
      } catch { /* closed by its writable stream */ }
    }
  };
  return {
    file: tmp.file,
    async commit() {
      close();
      try {
        await Deno.rename(tmp.path, abs);
      } catch (error) {
        await Deno.remove(tmp.path).catch(() => {});
        throw error;
      }
    },
    async abort() {
      close();
      await Deno.remove(tmp.path).catch(() => {});
    },
  };
}
