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
   * Every command of the tree being run, loaded when asked for (`hooktap complete` completes from them).
   * Passed in rather than imported, so no command imports the command list, which knows every command.
   */
  commands: () => Promise<readonly CommandSpec[]>;
}
