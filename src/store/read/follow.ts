/**
 * Follows the event log as `hooktap dev` (another process) appends to it:
 * `hooktap logs --follow`. Polls the file's size and reads only the new
 * bytes; a line still being written is read again on the next poll, never
 * half. If the log shrinks (deleted, or cut by a crash repair), it starts
 * over from the new end of the last complete line.
 * @module
 */
import type { CapturedEvent } from "../../event/record.ts";
import { parseEventLine } from "../../event/record.ts";
import { type Line, readLine, scanForward } from "./lines.ts";
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

async function _size(path: string): Promise<number> {
  try {
    return (await Deno.stat(path)).size;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return 0;
    throw error;
  }
}

/** The events appended to the log after byte `from`, as they arrive, until `signal` aborts. */
export async function* followEvents(
  paths: StorePaths,
  from: number,
  options: FollowOptions,
): AsyncGenerator<CapturedEvent> {
  const { signal } = options;
  let pos = from;
  while (!signal.aborted) {
    const size = await _size(paths.events);
    if (size < pos) pos = 0; // the log was replaced or cut: read what is there now
    if (size > pos) {
      using file = await Deno.open(paths.events, { read: true });
      for await (const line of scanForward(file, pos, size)) {
        if (line.torn) break; // still being written: read it whole next time
        pos = line.start + line.length + 1;
        const event = parseEventLine(decoder.decode(await readLine(file, line)));
        if (event === undefined) options.onSkip?.(line);
        else yield event;
        if (signal.aborted) return;
      }
    }
    await sleepUnlessAborted(options.pollMs ?? 200, signal);
  }
}
