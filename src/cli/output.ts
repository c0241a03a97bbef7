/**
 * The port a command prints through, defined with the engine that hands it
 * to commands (`CommandContext`, ./context.ts); src/term/output.ts implements it
 * for the real terminal (and re-exports these types). Interfaces only.
 * @module
 */

/** Colour functions; identity when colours are off. */
export interface Colors {
  readonly enabled: boolean;
  bold(s: string): string;
  dim(s: string): string;
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  blue(s: string): string;
  magenta(s: string): string;
  cyan(s: string): string;
  gray(s: string): string;
}

/** Where a command prints. Tests may pass their own. */
export interface Output {
  /** Writes text (add your own newline) to stdout. */
  out(text: string): void;
  /** Writes raw bytes to stdout. */
  outBytes(bytes: Uint8Array): void;
  /** Writes text to stderr. */
  err(text: string): void;
  /** Whether stdout is a terminal (pretty output) or a pipe (plain). */
  readonly stdoutIsTerminal: boolean;
  /** Columns of stdout's terminal (read at each call: the window may be resized); undefined for a pipe. */
  columns(): number | undefined;
  /** Colours for stdout. */
  readonly colors: Colors;
  /** Colours for stderr. */
  readonly errColors: Colors;
}
