/**
 * What every command action receives.
 * @module
 */
import type { Output } from "./output.ts";
import type { CommandSpec } from "./spec.ts";

/** What every command action receives. */
export interface CommandContext {
  output: Output;
  /** Working directory: the config and `.hooktap/` are found from here. */
  cwd: string;
  /** Sets the process's exit code (main.ts exits with it). */
  exit(code: number): void;
  /** Aborted when the user presses Ctrl-C or the process gets SIGTERM. */
  signal: AbortSignal;
  /**
   * The command tree being run (`hooktap complete` completes from it). Passed in rather than imported, so
   * no command imports the command list, which imports every command.
   */
  commands: readonly CommandSpec[];
}
