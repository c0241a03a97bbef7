/**
 * stderr that outlives its reader, for a process left running: `hooktap dev
 * 2>&1 | head -1`, `dev 2>&1 | tee log` whose tee was stopped, or a closed
 * terminal. A write there then fails (EPIPE, EIO); for `dev` printing is a
 * courtesy and receiving the job, so once stderr fails its lines are
 * dropped instead of stopping the receiver (stdout is handled where the
 * request lines are printed: src/term/dev_log.ts).
 * @module
 */
import type { Output } from "../cli/output.ts";

/** `output` whose `err` drops its text, silently, from the first write that fails on. */
export function toleratingClosedStderr(output: Output): Output {
  let gone = false;
  return {
    out: (text) => output.out(text),
    outBytes: (bytes) => output.outBytes(bytes),
    err(text) {
      if (gone) return;
      try {
        output.err(text);
      } catch {
        gone = true; // nobody reads stderr any more: nothing to tell them, and no one to tell it to
      }
    },
    get stdoutIsTerminal() {
      return output.stdoutIsTerminal;
    },
    columns: () => output.columns(),
    colors: output.colors,
    errColors: output.errColors,
  };
}
