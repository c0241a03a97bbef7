/**
 * The configured endpoint names for TAB, fast: loading `hooktap.config.ts`
 * (a worker that imports it) costs ~40 ms of CPU, too much for every TAB. The
 * names are kept in `.hooktap/completion.json` beside the config's path, size
 * and modification time, and the config is loaded again only when it changed.
 * The cache is written only where `.hooktap/` already exists and may be
 * written; any failure just means loading the config.
 * @module
 */
import { lazyImport } from "../cli/lazy.ts";
import { CONFIG_FILE_NAME } from "../config/types.ts";
import { DATA_DIR_NAME } from "../store/paths.ts";
import { writeFileReplacing } from "../store/write/no_follow.ts";
import { joinPath, resolvePath } from "../text/path.ts";

interface Cache {
  v: 1;
  file: string;
  size: number;
  mtimeMs: number | null;
  names: string[];
}

function _fresh(value: unknown, file: string, info: Deno.FileInfo): value is Cache {
  const c = value as Partial<Cache> | null;
  return typeof c === "object" && c !== null && c.v === 1 && c.file === file && c.size === info.size &&
    c.mtimeMs === (info.mtime?.getTime() ?? null) && Array.isArray(c.names) &&
    c.names.every((n) => typeof n === "string");
}

/** The endpoint names of the config in `cwd` (none when it is missing or does not load). */
export async function configuredEndpointNames(cwd: string): Promise<string[]> {
  const file = resolvePath(cwd, CONFIG_FILE_NAME);
  const cache = joinPath(cwd, DATA_DIR_NAME, "completion.json");
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(file);
  } catch {
    return [];
  }
  try {
    const cached: unknown = JSON.parse(await Deno.readTextFile(cache));
    if (_fresh(cached, file, info)) return cached.names;
  } catch {
    // none yet, or unreadable: load the config
  }
  const { loadConfig } = await lazyImport<typeof import("../config/load.ts")>("src/config/load.ts");
  // A config that does not load offers no names, and is not loaded again until it changes.
  const config = await loadConfig({ cwd }).catch(() => null);
  const names = config?.endpoints.map((e) => e.name) ?? [];
  const entry: Cache = { v: 1, file, size: info.size, mtimeMs: info.mtime?.getTime() ?? null, names };
  // An exclusive temp file renamed over the cache: a link planted there is replaced, never written through.
  await writeFileReplacing(cache, JSON.stringify(entry) + "\n").catch(() => {});
  return names;
}
