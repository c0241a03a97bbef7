/**
 * Wiring shared by the commands (they never import each other): the
 * context every action gets, and the config lookup they have in common.
 * @module
 */
import { ConfigError } from "../errors.ts";
import { loadConfig } from "../config/load.ts";
import type { ResolvedConfig } from "../config/types.ts";
import { type StorePaths, storePaths } from "../store/paths.ts";
import type { Output } from "../ui/output.ts";

/** What every command action receives. */
export interface CommandContext {
  output: Output;
  /** Working directory: the config and `.hooktap/` are found from here. */
  cwd: string;
  /** Sets the process's exit code (main.ts exits with it). */
  exit(code: number): void;
  /** Aborted when the user presses Ctrl-C or the process gets SIGTERM. */
  signal: AbortSignal;
}

/** The store of the working directory. */
export function storeOf(ctx: CommandContext): StorePaths {
  return storePaths(`${ctx.cwd}/.hooktap`);
}

/** The config, which must exist. */
export async function requireConfig(ctx: CommandContext, path: string | undefined): Promise<ResolvedConfig> {
  const config = await loadConfig({ cwd: ctx.cwd, path });
  if (config === null) {
    throw new ConfigError("No hooktap.config.ts in this directory.", [
      "run `hooktap init --yes` to write the starter config, or pass --config PATH",
    ]);
  }
  return config;
}

/** Parses a `--port` value. */
export function parsePort(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) {
    throw new ConfigError(`--port must be a whole number from 0 to 65535, got "${value}".`);
  }
  return n;
}
