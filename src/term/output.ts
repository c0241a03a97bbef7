/**
 * The terminal edge: every byte hooktap prints goes through here. Data for
 * machines goes to stdout; banners, progress, warnings and errors to stderr.
 * @module
 */
import type { Output } from "../cli/output.ts";
import { createColors } from "./colors.ts";
import { escapeForTerminal } from "../text/sanitize.ts";

export type { Output };

const encoder = new TextEncoder();

function writeAllSync(stream: { writeSync(p: Uint8Array): number }, bytes: Uint8Array): void {
  let off = 0;
  while (off < bytes.length) off += stream.writeSync(bytes.subarray(off));
}

/** The process's real stdout and stderr. */
export function terminalOutput(): Output {
  const stdoutIsTerminal = Deno.stdout.isTerminal();
  const colorOk = !Deno.noColor;
  return {
    // On a terminal, C1 controls and bidi/invisible characters are escaped (`--json` stays valid JSON).
    out: stdoutIsTerminal
      ? (text) => writeAllSync(Deno.stdout, encoder.encode(escapeForTerminal(text)))
      : (text) => writeAllSync(Deno.stdout, encoder.encode(text)),
    outBytes: (bytes) => writeAllSync(Deno.stdout, bytes),
    err: (text) => writeAllSync(Deno.stderr, encoder.encode(text)),
    stdoutIsTerminal,
    columns: () => {
      if (!stdoutIsTerminal) return undefined;
      try {
        return Deno.consoleSize().columns || undefined;
      } catch {
        return undefined;
      }
    },
    colors: createColors(colorOk && stdoutIsTerminal),
    errColors: createColors(colorOk && Deno.stderr.isTerminal()),
  };
}
