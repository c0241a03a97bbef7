/**
 * The unmatched log, `.hooktap/unmatched.jsonl`: requests answered 404 or
 * 405, kept so `hooktap logs --unmatched` and `hooktap doctor` can say what
 * a sender got wrong. Never the event log: nothing here was accepted. It is
 * bounded in bytes: past twice its bound it is rewritten with its newest
 * lines that fit in `bound` bytes (an exclusive temp file, then a rename),
 * and each path and query is cut to {@linkcode UNMATCHED_FIELD_MAX}
 * characters, marked. No fsync: losing the last few lines
 * to a crash costs a hint, not data.
 * @module
 */
import type { StorePaths } from "../paths.ts";
import { CUT_MARK, cutMarked, LOGGED_FIELD_MAX } from "../../text/cut.ts";
import { openNoFollow, writeFileReplacing } from "./no_follow.ts";

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

/** Bytes kept after a rewrite; the log is rewritten once it passes twice this. */
export const UNMATCHED_BOUND = 256 * 1024;
/** Most characters of a path or a query kept in an entry (the rest is cut, marked). */
export const UNMATCHED_FIELD_MAX: number = LOGGED_FIELD_MAX;
/** Appended to a path or query that was cut. */
export const TRUNCATED_MARK: string = CUT_MARK;

/** An open unmatched log. */
export interface UnmatchedLog {
  /** Appends one entry (in the background; errors are ignored: the log is a courtesy). */
  add(entry: UnmatchedEntry): void;
  /** Waits for pending writes and closes the file. */
  close(): Promise<void>;
}

async function sizeOf(path: string): Promise<number> {
  try {
    const info = await Deno.lstat(path);
    return info.isFile ? info.size : 0;
  } catch {
    return 0;
  }
}

/**
 * Rewrites the log with its newest lines, at most `keep` bytes of them,
 * reading only its last `keep` bytes (bounded memory), into an exclusive
 * temp file renamed over the log (never through a link).
 */
async function rewriteNewest(path: string, keep: number): Promise<number> {
  using file = await openNoFollow(path, "the unmatched log", { read: true });
  const size = (await file.stat()).size;
  const from = Math.max(0, size - keep);
  const buf = new Uint8Array(size - from);
  await file.seek(from, Deno.SeekMode.Start);
  for (let got = 0; got < buf.length;) {
    const n = await file.read(buf.subarray(got));
    if (n === null) break;
    got += n;
  }
  // Drop a partial first line (the cut fell inside it) and a torn last one.
  const nl = buf.indexOf(0x0a);
  const start = from === 0 ? 0 : nl === -1 ? buf.length : nl + 1;
  const end = Math.max(start, buf.lastIndexOf(0x0a) + 1);
  const kept = buf.subarray(start, end);
  await writeFileReplacing(path, kept);
  return kept.length;
}

/**
 * Opens (creating) the unmatched log of a data directory.
 * @throws {StoreError} when it is a link or cannot be opened.
 */
export async function openUnmatchedLog(
  paths: StorePaths,
  options: { bound?: number } = {},
): Promise<UnmatchedLog> {
  const bound = options.bound ?? UNMATCHED_BOUND;
  let size = await sizeOf(paths.unmatched);
  let chain: Promise<void> = Promise.resolve();
  // Opened now, so a link planted there stops `dev` at start with the fix, not silently later.
  let file: Deno.FsFile | undefined = await openNoFollow(paths.unmatched, "the unmatched log", {
    append: true,
  });
  const encoder = new TextEncoder();
  const write = async (line: string) => {
    file ??= await openNoFollow(paths.unmatched, "the unmatched log", { append: true });
    const bytes = encoder.encode(line);
    for (let done = 0; done < bytes.length;) done += await file.write(bytes.subarray(done));
    size += bytes.length;
    if (size > 2 * bound) {
      file.close();
      file = undefined;
      size = await rewriteNewest(paths.unmatched, bound);
    }
  };
  return {
    add(entry) {
      const cut = {
        ...entry,
        path: cutMarked(entry.path),
        query: cutMarked(entry.query),
      };
      const line = JSON.stringify(cut) + "\n";
      chain = chain.then(() => write(line)).catch(() => {});
    },
    async close() {
      await chain;
      file?.close();
      file = undefined;
    },
  };
}
