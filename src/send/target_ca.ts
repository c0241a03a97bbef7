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
 * `replay` alike. `endpoint`: the endpoint whose target it is (named in the error).
 * @throws {UsageError} when it cannot be read: the endpoint, the path as written, where it was looked for
 * and the fix.
 */
export async function readTargetCa(
  forward: ResolvedForward,
  baseDir: string,
  endpoint?: string,
): Promise<string | undefined> {
  if (forward.caFile === undefined) return undefined;
  const file = resolvePath(baseDir, forward.caFile);
  try {
    return await Deno.readTextFile(file);
  } catch (error) {
    const why = error instanceof Deno.errors.NotFound
      ? "no such file"
      : error instanceof Deno.errors.IsADirectory
      ? "it is a folder"
      : describeError(error);
    const relative = file !== forward.caFile
      ? ` (a relative path is read from the config file's folder, ${baseDir})`
      : "";
    throw new UsageError(
      `Cannot read the forward.ca of ${
        endpoint === undefined ? "a forward target" : `endpoint "${endpoint}"`
      }` +
        `${forward.name ? ` (target ${forward.name})` : ""}: ca: ${
          JSON.stringify(forward.caFile)
        } was looked ` +
        `for at ${file}${relative}: ${why}. Set ca to the CA certificate (PEM) that signed the app's ` +
        `certificate, absolute or relative to that folder (for mkcert: the rootCA.pem in \`mkcert -CAROOT\`), ` +
        "or remove ca (and set insecure: true for a local self-signed certificate).",
    );
  }
}
