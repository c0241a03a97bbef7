/**
 * The local modules a config file imports (`import { extra } from
 * "./extra.ts"`), so that `hooktap dev` reloads the config when one of them
 * is edited too, not only the config file itself. Static relative
 * specifiers are followed, transitively, up to a bound; a package or URL
 * import is not watched (it does not change under the user's hands).
 * @module
 */
import type { ConfigWatch } from "../config/reload.ts";
import { fileUrl } from "../text/path.ts";

/** Relative specifiers of static imports, re-exports and literal dynamic imports. */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["'](\.{1,2}\/[^"'\n]+)["']/g;

/** The local files `file` imports, transitively (the file itself aside), at most `limit` of them. */
export async function localImports(file: string, limit = 20): Promise<string[]> {
  const found = new Set<string>();
  const queue = [file];
  while (queue.length > 0 && found.size < limit) {
    const from = queue.shift()!;
    let text: string;
    try {
      text = await Deno.readTextFile(from);
    } catch {
      continue; // unreadable (permissions, gone): its imports are not known
    }
    for (const m of text.matchAll(SPECIFIER)) {
      const url = new URL(m[1]!, fileUrl(from));
      if (url.protocol !== "file:") continue;
      const path = decodeURIComponent(url.pathname);
      if (path === file || found.has(path) || found.size >= limit) continue;
      found.add(path);
      queue.push(path);
    }
  }
  return [...found];
}

/** A watch of the config's imports. */
export interface ImportsWatch {
  /** Reads the imports again (after a reload, which may have changed them) and watches those. */
  refresh(): Promise<void>;
  close(): void;
}

/** Watches each local import of `configFile` with `start` (one watch per file); `refresh` keeps the set current. */
export function watchConfigImports(configFile: string, start: (file: string) => ConfigWatch): ImportsWatch {
  const watches = new Map<string, ConfigWatch>();
  let closed = false;
  const refresh = async () => {
    const files = new Set(await localImports(configFile));
    if (closed) return;
    for (const [path, watch] of watches) {
      if (!files.has(path)) {
        watch.close();
        watches.delete(path);
      }
    }
    for (const path of files) {
      if (watches.has(path)) continue;
      try {
        watches.set(path, start(path));
      } catch { /* a directory Deno may not watch: that import is not followed */ }
    }
  };
  return {
    refresh,
    close() {
      closed = true;
      for (const watch of watches.values()) watch.close();
      watches.clear();
    },
  };
}
