/**
 * A forward target's `forward.ca` file read to PEM text, for dev and `replay` alike (apart from target.ts,
 * which the inspector's page bundles: this reads files).
 * @module
 */
import { resolvePath } from "../text/path.ts";
import { describeError, UsageError } from "../errors.ts";
import type { ResolvedForward } from "../config/forward.ts";

/**
 * The PEM text of a target's `forward.ca` (relative to `baseDir`, the config file's folder), for dev and for
 * `replay` alike. @throws {UsageError} when it cannot be read.
 */
export async function readTargetCa(forward: ResolvedForward, baseDir: string): Promise<string | undefined> {
  if (forward.caFile === undefined) return undefined;
  const file = resolvePath(baseDir, forward.caFile);
  try {
    return await Deno.readTextFile(file);
  } catch (error) {
    throw new UsageError(`Cannot read forward.ca ${file}: ${describeError(error)}.`);
  }
}
