/**
 * The hub's KV file on disk, private to the user who runs the hub: its
 * directory is created 0700, and the database with its `-wal` and `-shm`
 * files is 0600 whatever the umask (they hold every payload the hub stores).
 * The database is created 0600 before Deno KV opens it, because SQLite gives
 * its `-wal` and `-shm` files the database file's mode; they are set again
 * after the open in case they already existed.
 * @module
 */
import { lstatIfThere, pathKind } from "../store/write/path_kind.ts";
import { dirnameOf } from "../text/path.ts";

/** Mode of the directory the hub creates for its KV file. */
export const KV_DIR_MODE = 0o700;
/** Mode of the KV file and its `-wal` and `-shm` files. */
export const KV_FILE_MODE = 0o600;

async function chmod(path: string, mode: number): Promise<void> {
  try {
    await Deno.chmod(path, mode);
  } catch (error) {
    // Not on this platform (Windows), or the file is not there (no WAL yet).
    if (!(error instanceof Deno.errors.NotFound) && Deno.build.os !== "windows") throw error;
  }
}

/** What {@linkcode prepareKvFile} created, so that a hub that then fails to start can take it back. */
export interface PreparedKvFile {
  /** The outermost directory it created (with everything under it), or `undefined`. */
  createdDir: string | undefined;
  /** Whether it created the database file. */
  createdFile: boolean;
}

/** The outermost missing directory on the way to `dir`, or `undefined` when `dir` exists. */
async function outermostMissing(dir: string): Promise<string | undefined> {
  let missing: string | undefined;
  for (let at = dir;; at = dirnameOf(at)) {
    try {
      await Deno.stat(at);
      return missing;
    } catch (error) {
      // A directory Deno may not read (the npm launcher grants only the --kv file's own directory): one
      // this start did not create, so the walk ends there.
      if (error instanceof Deno.errors.NotCapable) return missing;
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      missing = at;
    }
    if (dirnameOf(at) === at) return missing;
  }
}

/** The hub refuses a KV path that is a link: Deno KV (SQLite) and the mode changes would go through it. */
export class KvLinkError extends Error {
  constructor(path: string, what: string) {
    super(
      `${path} is ${what}: the hub writes its store (and sets its mode) only in a file of its own, never ` +
        "through a link. Remove the link, or give the real path with --kv",
    );
    this.name = "KvLinkError";
  }
}

/** Throws when `path` is a symbolic link, or a file with another name (a hard link); nothing there is fine. */
async function refuseLink(path: string, what: "directory" | "file"): Promise<void> {
  const info = await lstatIfThere(path);
  if (info === undefined) return;
  const kind = pathKind(info);
  if (kind === "symbolic link") {
    throw new KvLinkError(path, `a symbolic link (the hub's ${what} must not be one)`);
  }
  if (what === "file" && kind === "hard link") {
    throw new KvLinkError(path, `a hard link (${info.nlink} names)`);
  }
}

/**
 * Before the open: creates the directory (0700) when missing, and the database file (0600) when missing;
 * an existing database file is set to 0600. `tighten`: set an existing directory to 0700 as well (the
 * hub's own default directory, which earlier versions created 0755).
 * @returns what it created ({@linkcode undoKvFile} removes it).
 */
export async function prepareKvFile(
  path: string,
  options: { tighten?: boolean } = {},
): Promise<PreparedKvFile> {
  const dir = dirnameOf(path);
  // A link planted at the hub's own directory, at the database or at its -wal or -shm file (a project
  // directory others can write to) would have the mode set, and SQLite write, through it.
  if (options.tighten) await refuseLink(dir, "directory");
  for (const p of [path, `${path}-wal`, `${path}-shm`]) await refuseLink(p, "file");
  const createdDir = await outermostMissing(dir);
  if (createdDir !== undefined) await Deno.mkdir(dir, { recursive: true, mode: KV_DIR_MODE });
  if (createdDir !== undefined || options.tighten) await chmod(dir, KV_DIR_MODE);
  let createdFile = createdDir !== undefined;
  if (!createdFile) {
    try {
      await Deno.lstat(path);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      createdFile = true;
    }
  }
  const file = await Deno.open(path, { create: true, write: true, mode: KV_FILE_MODE });
  file.close();
  await chmod(path, KV_FILE_MODE);
  await chmodSidecars(path);
  return { createdDir, createdFile };
}

/** Removes what {@linkcode prepareKvFile} created for `path` (the hub did not start): nothing else. */
export async function undoKvFile(path: string, prepared: PreparedKvFile): Promise<void> {
  const remove = (p: string, recursive = false) =>
    Deno.remove(p, { recursive }).catch((error) => {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    });
  if (prepared.createdDir !== undefined) return await remove(prepared.createdDir, true);
  if (!prepared.createdFile) return;
  for (const p of [path, `${path}-wal`, `${path}-shm`]) await remove(p);
}

/** After the open: the `-wal` and `-shm` files set to 0600 (when there). */
export async function chmodSidecars(path: string): Promise<void> {
  await chmod(`${path}-wal`, KV_FILE_MODE);
  await chmod(`${path}-shm`, KV_FILE_MODE);
}
