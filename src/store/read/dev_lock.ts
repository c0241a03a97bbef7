/**
 * Reading the lock of the `hooktap dev` running in a directory: the writer
 * lock on `.hooktap/dev.lock` is held while it runs, and the file holds what
 * it wrote at start (its pid, port, config). `trigger`, `replay` and `doctor`
 * ask it; nothing here writes.
 * @module
 */

/**
 * What the `hooktap dev` holding the lock at `path` wrote in it (JSON), or `undefined` when no dev holds the
 * lock, or the file is missing or unreadable.
 */
export async function heldLockOwner(path: string): Promise<Record<string, unknown> | undefined> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch {
    return undefined;
  }
  try {
    if (await file.tryLock(false)) {
      await file.unlock();
      return undefined; // nobody holds it: no dev
    }
    const owner = JSON.parse(await Deno.readTextFile(path));
    return owner !== null && typeof owner === "object" ? owner as Record<string, unknown> : undefined;
  } catch {
    return undefined;
  } finally {
    file.close();
  }
}
