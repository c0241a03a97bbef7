/**
 * Follows the event log as `hooktap dev` (another process) appends to it:
 * `hooktap logs --follow`, the inspector's live list, mcp's wait. Polls the
 * file and reads only the new bytes; a line still being written is read
 * again on the next poll, never half. A start in the middle of a line being
 * written starts at that line. When the log is replaced (`prune`, `rm` and
 * retention rename a compacted copy over it) or cut, it goes on after the
 * last event it passed, by id (ids sort in arrival order), so the events a
 * compaction kept are not yielded again and no offset of the old file is
 * read in the new one.
 * @module
 */
import type { CapturedEvent } from "../../event/record.ts";
import { parseEventLine } from "../../event/record.ts";
import { type Line, readLine, scanBackward, scanForward } from "./lines.ts";
import { lineId } from "./line_key.ts";
import type { StorePaths } from "../paths.ts";
import { sleepUnlessAborted } from "../../timer.ts";

/** Options of {@linkcode followEvents}. */
export interface FollowOptions {
  /** Stops following. */
  signal: AbortSignal;
  /**
   * Time between two looks at the file, in milliseconds.
   * @default 200
   */
  pollMs?: number;
  /** Called with each complete line that is not a record. */
  onSkip?: (line: Line) => void;
}

const decoder = new TextDecoder();

async function _open(path: string): Promise<Deno.FsFile | null> {
  try {
    return await Deno.open(path, { read: true });
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

/** Where following from `from` starts (the start of a line being written there) and the last id before it. */
async function _startAt(file: Deno.FsFile, from: number): Promise<{ pos: number; lastId?: string }> {
  let pos = from;
  for await (const line of scanBackward(file, from)) {
    if (line.torn) {
      pos = line.start; // `from` cut a line still being written: it is one of the new events
      continue;
    }
    const id = lineId(line.head);
    if (id !== undefined) return { pos, lastId: id };
  }
  return { pos };
}

/** The events appended to the log after byte `from`, as they arrive, until `signal` aborts. */
export async function* followEvents(
  paths: StorePaths,
  from: number,
  options: FollowOptions,
): AsyncGenerator<CapturedEvent> {
  const { signal } = options;
  let pos = from;
  let lastId: string | undefined;
  let ino: number | null = null;
  let started = false;
  // After the log was replaced: lines with an id up to this one were passed already (in the old file).
  let resumeAfter: string | undefined;
  while (!signal.aborted) {
    const file = await _open(paths.events);
    try {
      const info = file === null ? null : await file.stat();
      const size = info?.size ?? 0;
      if (file !== null && !started) {
        started = true;
        ino = info!.ino;
        ({ pos, lastId } = await _startAt(file, Math.min(pos, size)));
      } else if (size < pos || (info !== null && ino !== null && info.ino !== null && info.ino !== ino)) {
        // Replaced by a compaction, or cut: read it from its start, after the last event passed.
        pos = 0;
        resumeAfter = lastId;
      }
      if (info !== null) ino = info.ino;
      if (file !== null && size > pos) {
        for await (const line of scanForward(file, pos, size)) {
          if (line.torn) break; // still being written: read it whole next time
          pos = line.start + line.length + 1;
          const id = lineId(line.head);
          if (resumeAfter !== undefined) {
            if (id === undefined || id <= resumeAfter) continue; // the compacted copy of what was passed
            resumeAfter = undefined;
          }
          const event = parseEventLine(decoder.decode(await readLine(file, line)));
          if (event === undefined) options.onSkip?.(line);
          else yield event;
          if (id !== undefined) lastId = id;
          if (signal.aborted) return;
        }
      }
    } finally {
      file?.close();
    }
    await sleepUnlessAborted(options.pollMs ?? 200, signal);
  }
}
