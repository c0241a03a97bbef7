/**
 * The config a running `hooktap dev` uses, as its writer lock names it
 * (`.hooktap/dev.lock`'s `config`: the run's `--config`): what `trigger`
 * and `doctor` use when they are given no `--config`, so they judge the
 * endpoints the running dev serves, not a `hooktap.config.ts` it ignores.
 * @module
 */

/**
 * The `--config` of the dev that holds the lock at `lockPath` (as given, relative to the directory it runs
 * in), or `undefined` when no dev holds it, or it runs on the default config.
 */
export async function runningDevConfig(lockPath: string): Promise<string | undefined> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(lockPath, { read: true });
  } catch {
    return undefined;
  }
  try {
    if (await file.tryLock(false)) {
      await file.unlock();
      return undefined; // nobody holds it: no dev
    }
    const owner = JSON.parse(await Deno.readTextFile(lockPath)) as { config?: unknown };
    return typeof owner.config === "string" && owner.config !== "" ? owner.config : undefined;
  } catch {
    return undefined;
  } finally {
    file.close();
  }
}
