/**
 * Creates the data directory on first use: owner-only, with a `.gitignore`
 * so captured payloads (which carry secrets) are never committed.
 * @module
 */
import { join } from "node:path";
import { describeError, StoreError } from "../errors.ts";
import type { StorePaths } from "./paths.ts";

const GITIGNORE = "# hooktap's captured webhooks carry secrets: never commit them.\n*\n";

/** Makes sure the data directory exists, owner-only, with its `.gitignore`. */
export async function ensureDataDir(paths: StorePaths): Promise<void> {
  try {
    await Deno.mkdir(paths.dir, { recursive: true, mode: 0o700 });
    await Deno.chmod(paths.dir, 0o700);
    await Deno.writeTextFile(join(paths.dir, ".gitignore"), GITIGNORE, { createNew: true }).catch(
      (error) => {
        if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
      },
    );
  } catch (error) {
    throw new StoreError(
      `Cannot create the data directory ${paths.dir}: ${describeError(error)}. ` +
        `Run hooktap where you may write, and allow it (deno run --allow-write=.hooktap).`,
      { cause: error },
    );
  }
}
