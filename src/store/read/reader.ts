/**
 * A read-only view of the event log for `logs`, `inspect` and `replay`.
 * It never takes the writer's lock: `hooktap dev` may append while it reads,
 * and it only ever looks at the bytes that existed when it was opened.
 * Lines that are not v1 records (a torn last line, a corrupt line) are
 * counted in `skipped` so the command can warn once.
 * @module
 */
import { describeError, StoreError } from "../../errors.ts";
import { type CapturedEvent, parseEventLine } from "../../event/record.ts";
import { type Line, readLine } from "./lines.ts";
import type { StorePaths } from "../paths.ts";

/** An open event log. */
export interface StoreReader extends Disposable {
  readonly paths: StorePaths;
  readonly file: Deno.FsFile;
  /** Size of the log when it was opened: readers look at `[0, size)` only. */
  readonly size: number;
  /** Line starts already counted as skipped (a line may be read twice). */
  readonly skippedAt: Set<number>;
  /** Lines skipped so far because they were not records. */
  readonly skipped: number;
  /** Reads a line whole and parses it; counts it as skipped and returns `undefined` when it is not a record. */
  parse(line: Line): Promise<CapturedEvent | undefined>;
  /** Counts a line as skipped. */
  skip(line: Line): void;
}

const decoder = new TextDecoder();

/**
 * Opens the event log for reading, by synchronous calls (an open and an
 * fstat without hand-offs to a worker thread: a command's start-up and a
 * server's frequent reads of the log's recent tail both gain).
 * @returns `null` when there is no log yet.
 * @throws {StoreError} when it exists but cannot be read.
 */
export function openStoreReader(paths: StorePaths): Promise<StoreReader | null> {
  try {
    return Promise.resolve(_open(paths));
  } catch (error) {
    return Promise.reject(error);
  }
}

function _open(paths: StorePaths): StoreReader | null {
  let file: Deno.FsFile;
  try {
    // Synchronous, as the scans' reads are: opening a local file takes microseconds, and Deno's first async
    // file operation starts a thread (a command's start-up paid ~0.5 ms for it).
    file = Deno.openSync(paths.events, { read: true });
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw new StoreError(
      `Cannot read the event log ${paths.events}: ${describeError(error)}. ` +
        `Allow reading it (deno run --allow-read=.) and check its permissions.`,
      { cause: error },
    );
  }
  let size: number;
  try {
    size = file.statSync().size;
  } catch (error) {
    file.close();
    throw error;
  }
  const skippedAt = new Set<number>();
  const skip = (line: Line) => void skippedAt.add(line.start);
  return {
    paths,
    file,
    size,
    skippedAt,
    get skipped() {
      return skippedAt.size;
    },
    async parse(line) {
      const event = line.torn ? undefined : parseEventLine(decoder.decode(await readLine(file, line)));
      if (event === undefined) skip(line);
      return event;
    },
    skip,
    [Symbol.dispose]() {
      file.close();
    },
  };
}
