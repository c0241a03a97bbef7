/**
 * A one-line progress bar on stderr, redrawn at most every 100 ms, only
 * when stderr is a terminal.
 * @module
 */

/** A progress bar. */
export interface ProgressBar {
  /** Sets what is done and the counts shown beside the bar. */
  update(done: number, note: string): void;
  /** Clears the line. */
  done(): void;
}

const encoder = new TextEncoder();

/** A bar for `total` steps titled `label`; a no-op when stderr is not a terminal. */
export function progressBar(
  total: number,
  label: string,
  isTerminal = Deno.stderr.isTerminal(),
): ProgressBar {
  if (!isTerminal) return { update() {}, done() {} };
  let last = 0;
  const write = (text: string) => Deno.stderr.writeSync(encoder.encode(text));
  const draw = (done: number, note: string) => {
    let columns = 80;
    try {
      columns = Deno.consoleSize().columns || 80;
    } catch { /* not sized */ }
    const text = ` ${done}/${total} ${note}`;
    const width = Math.max(10, Math.min(40, columns - label.length - text.length - 4));
    const filled = total === 0 ? width : Math.round((done / total) * width);
    write(`\r\x1b[2K${label} [${"#".repeat(filled)}${".".repeat(width - filled)}]${text}`);
  };
  return {
    update(done, note) {
      const now = performance.now();
      if (now - last < 100 && done < total) return;
      last = now;
      draw(done, note);
    },
    done() {
      write("\r\x1b[2K");
    },
  };
}
