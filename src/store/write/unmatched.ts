/**
 * The unmatched log, `.hooktap/unmatched.jsonl`: requests answered 404 or
 * 405, kept so `hooktap logs --unmatched` and `hooktap doctor` can say what
 * a sender got wrong. Never the event log: nothing here was accepted. It is
 * bounded: past twice its bound it is rewritten with its newest `bound`
 * lines (a temp file, then a rename). No fsync: losing the last few lines
 * to a crash costs a hint, not data.
 * @module
 */
import type { StorePaths } from "../paths.ts";

/** One request that matched no endpoint. */
export interface UnmatchedEntry {
  /** Arrival time, ISO 8601 UTC. */
  time: string;
  method: string;
  /** URL path as received (dot segments resolved). */
  path: string;
  /** Raw query string without `?`. */
  query: string;
  /** 404 (no endpoint has the path) or 405 (the path exists, not with this method). */
  status: 404 | 405;
  /** Methods the path accepts, on a 405. */
  allow?: string[];
}

/** Lines kept after a rewrite. */
export const UNMATCHED_BOUND = 1000;

/** An open unmatched log. */
export interface UnmatchedLog {
  /** Appends one entry (in the background; errors are ignored: the log is a courtesy). */
  add(entry: UnmatchedEntry): void;
  /** Waits for pending writes and closes the file. */
  close(): Promise<void>;
}

async function countLines(path: string): Promise<number> {
  try {
    const text = await Deno.readTextFile(path);
    return text.split("\n").length - 1;
  } catch {
    return 0;
  }
}

async function rewriteNewest(path: string, bound: number): Promise<void> {
  const lines = (await Deno.readTextFile(path)).split("\n").filter((l) => l !== "");
  const tmp = `${path}.tmp`;
  await Deno.writeTextFile(tmp, lines.slice(-bound).map((l) => l + "\n").join(""), { mode: 0o600 });
  await Deno.rename(tmp, path);
}

/** Opens (creating) the unmatched log of a data directory. */
export async function openUnmatchedLog(
  paths: StorePaths,
  options: { bound?: number } = {},
): Promise<UnmatchedLog> {
  const bound = options.bound ?? UNMATCHED_BOUND;
  let lines = await countLines(paths.unmatched);
  let chain: Promise<void> = Promise.resolve();
  let file: Deno.FsFile | undefined;
  const encoder = new TextEncoder();
  const write = async (line: string) => {
    file ??= await Deno.open(paths.unmatched, { append: true, create: true, mode: 0o600 });
    const bytes = encoder.encode(line);
    for (let done = 0; done < bytes.length;) done += await file.write(bytes.subarray(done));
    lines++;
    if (lines > 2 * bound) {
      file.close();
      file = undefined;
      await rewriteNewest(paths.unmatched, bound);
      lines = bound;
    }
  };
  return {
    add(entry) {
      const line = JSON.stringify(entry) + "\n";
      chain = chain.then(() => write(line)).catch(() => {});
    },
    async close() {
      await chain;
      file?.close();
      file = undefined;
    },
  };
}
