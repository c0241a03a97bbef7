/**
 * A file the user names (`export -o FILE`, `dev --ready-file FILE`): never
 * inside the data directory (real paths compared, so a link or `..` cannot
 * sneak it in), written to an exclusive temp file beside it and renamed over
 * it when complete, owner-only (0600) whatever was there before. When Deno
 * may not write a temp file beside it (the npm package grants
 * `--allow-write=FILE` exactly; `deno install`'s shim grants neither), the
 * file is written in place, so Deno allows, asks or refuses for FILE itself.
 * @module
 */
import { basename, dirname } from "node:path";
import { UsageError } from "../../errors.ts";
import { resolvePath } from "../../text/path.ts";
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
    return resolvePath(await realOrSelf(dirname(path)), basename(path));
  }
}

/**
 * Refuses `path` when it is, or lies inside, the data directory `dataDir`.
 * @throws {UsageError} naming the path and the fix.
 */
export async function refuseInsideStore(path: string, dataDir: string, option: string): Promise<void> {
  const target = await realTarget(path);
  const store = await realOrSelf(dataDir);
  if (target === store || target.startsWith(store.endsWith("/") ? store : store + "/")) {
    throw new UsageError(
      `${option} ${path} is inside hooktap's data directory ${dataDir}: writing there could destroy ` +
        `the stored events. Write somewhere else, like ${option} export.jsonl.`,
    );
  }
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

/** `path` opened in place (truncated, 0600): when only the file itself may be written. */
async function openInPlace(path: string): Promise<UserFile> {
  const file = await Deno.open(path, { write: true, create: true, truncate: true, mode: 0o600 });
  await Deno.chmod(path, 0o600).catch(() => {}); // an existing file keeps its mode on open
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

/** Writes `text` to the user-named `path`: a temp file renamed over it, or in place when only it may be written. */
export async function writeUserFile(path: string, text: string): Promise<void> {
  const out = granted(`${path}.tmp`) ? await startTemp(path) : await openInPlace(path);
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
  return granted(`${abs}.tmp`) ? await startTemp(abs) : await openInPlace(abs);
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
