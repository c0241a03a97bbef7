/**
 * `hooktap mcp`: serves the project to a coding agent over MCP on stdio
 * (src/mcp/). stdout is the protocol's: nothing else is written there; a
 * person who starts it on a terminal gets one line on stderr.
 * @module
 */
import type { options } from "./command.ts";
import type { Input } from "../../cli/spec.ts";
import type { CommandContext } from "../_shared/context.ts";

/** `hooktap mcp`. */
export async function run(ctx: CommandContext, input: Input<typeof options>): Promise<void> {
  const configPath = input.options.config;
  if (configPath !== undefined) await _refuseMissingConfig(ctx.cwd, configPath);
  const { serveStdio } = await import("../../mcp/server.ts");
  if (Deno.stdin.isTerminal()) {
    ctx.output.err(
      "hooktap mcp speaks MCP on stdin/stdout: a coding agent starts it (docs/agents.md). " +
        "Press Ctrl-C to stop.\n",
    );
  }
  await serveStdio({ cwd: ctx.cwd, configPath, signal: ctx.signal });
}

/**
 * An explicit `--config` that names no file is refused at start, with the message and exit code every
 * command gives (the config loader's own). A config that is there but does not load is each tool's error
 * (the server reads it afresh on each call, so a fix applies without a restart).
 * @throws {ConfigError} when the file does not exist.
 */
async function _refuseMissingConfig(cwd: string, path: string): Promise<void> {
  const { configPath, loadConfig } = await import("../../config/load.ts");
  try {
    await Deno.stat(configPath({ cwd, path }));
  } catch (error) {
    // The loader says it in the words of every command (it finds the file missing too).
    if (error instanceof Deno.errors.NotFound) await loadConfig({ cwd, path });
  }
}
