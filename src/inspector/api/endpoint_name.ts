/**
 * An `endpoint=` filter naming an endpoint that does not exist is refused,
 * as `hooktap logs --endpoint` and mcp refuse it: a name neither in the
 * config nor in the store's index (`.hooktap/index.json`) is a typo, and an
 * empty list would hide it. When nothing can tell (no config, no index),
 * nothing is refused.
 * @module
 */
import { readIndex } from "../../store/index_file.ts";
import type { StoreReader } from "../../store/read/reader.ts";
import { didYouMean } from "../../text/suggest.ts";

/**
 * Why `name` names no endpoint, or `undefined` when it does (or nothing can tell): `configured` are the
 * config's names, `reader` the open store (`null`: none yet).
 */
export async function unknownEndpoint(
  name: string,
  configured: readonly string[],
  reader: StoreReader | null,
): Promise<string | undefined> {
  if (configured.includes(name)) return undefined;
  const index = reader === null ? undefined : await readIndex(reader.paths, reader.file, reader.size);
  const stored = Object.keys(index?.latest ?? {});
  if (stored.includes(name)) return undefined;
  if (configured.length === 0 && index === undefined) return undefined;
  const names = [...new Set([...configured, ...stored])].sort();
  return `There is no endpoint named ${JSON.stringify(name)}` +
    `${didYouMean(name, names, (n) => JSON.stringify(n)) || "."} ` +
    (names.length === 0 ? "No endpoint has events yet." : `Known endpoints: ${names.join(", ")}.`);
}
