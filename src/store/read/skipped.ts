/**
 * What the lines a read skipped were, so the one warning about them is
 * true: damaged (torn by a crash, or edited by hand), written by a newer
 * hooktap (a format version this one does not know), or the last line
 * still being written by the `hooktap dev` that holds the writer lock,
 * which is no damage at all. Synchronous, as the readers' scans are.
 * @module
 */
import { RECORD_VERSION_2 } from "../../event/record.ts";
import { plural } from "../../text/format.ts";
import { devHoldsLock } from "./dev_lock.ts";
import { lastCompleteLineEnd } from "./line_end.ts";
import { readAtSync } from "./lines.ts";
import type { StoreReader } from "./reader.ts";

/** The skipped lines of a read, by kind. */
export interface SkippedLines {
  /** Torn by a crash, or edited by hand. */
  damaged: number;
  /** Records of a format newer than this hooktap reads. */
  newer: number;
  /** The newest format version among them. */
  newestVersion: number;
  /** The last line, still being written by the running `hooktap dev` (0 or 1). */
  beingWritten: number;
}

const decoder = new TextDecoder();
const VERSION_HEAD = /^\{"v":(\d{1,9})[,}]/;

/**
 * Sorts the lines `reader` skipped into {@linkcode SkippedLines}. The reader may be closed already: the
 * log is opened again and only `[0, reader.size)` is looked at (the log is only appended to meanwhile).
 */
export function classifySkipped(reader: StoreReader): SkippedLines {
  const out: SkippedLines = { damaged: 0, newer: 0, newestVersion: 0, beingWritten: 0 };
  if (reader.skipped === 0) return out;
  let file: Deno.FsFile;
  try {
    file = Deno.openSync(reader.paths.events, { read: true });
  } catch {
    out.damaged = reader.skipped; // gone meanwhile: say what was seen
    return out;
  }
  try {
    const whole = lastCompleteLineEnd(file, reader.size);
    const tail = whole === reader.size ? -1 : whole; // where an unfinished last line starts
    const head = new Uint8Array(24);
    for (const start of reader.skippedAt) {
      if (start === tail && devHoldsLock(reader.paths.lock)) {
        out.beingWritten++;
        continue;
      }
      const m = VERSION_HEAD.exec(decoder.decode(head.subarray(0, readAtSync(file, start, head))));
      const version = m === null ? 0 : Number(m[1]);
      if (start !== tail && version > RECORD_VERSION_2) {
        out.newer++;
        out.newestVersion = Math.max(out.newestVersion, version);
      } else out.damaged++;
    }
  } finally {
    file.close();
  }
  return out;
}

/**
 * The warnings a list owes for `kinds` (without `warning: `), one per kind met: damaged lines, and lines of a
 * newer format; a line still being written is none. `logs`, `inspect`, `export` and mcp's search say the same.
 */
export function skippedWarnings(kinds: SkippedLines): string[] {
  const warnings: string[] = [];
  if (kinds.damaged > 0) {
    warnings.push(
      `skipped ${plural(kinds.damaged, "damaged line")} in .hooktap/events.jsonl ` +
        `(torn by a crash, or edited by hand); the other events are shown.`,
    );
  }
  if (kinds.newer > 0) {
    warnings.push(
      `skipped ${plural(kinds.newer, "line")} in .hooktap/events.jsonl written by a newer hooktap ` +
        `(event format v${kinds.newestVersion}; this one reads v1 and v2): upgrade hooktap to see them; ` +
        `the other events are shown.`,
    );
  }
  return warnings;
}
