/**
 * `hooktap mcp`: serves the project to a coding agent over MCP on stdio
 * (src/mcp/). stdout is the protocol's: nothing else is written there; a
 * person who starts it on a terminal gets one line on stderr.
 * @module
 */
import type { options } from "./command.ts";
import type { Input } from "../../cli/spec.ts";
import { type CommandContext, explicitConfig } from "../_shared/context.ts";

/** `hooktap mcp`. */
export async function run(ctx: CommandContext, input: Input<typeof options>): Promise<void> {
  const configPath = input.options.config;
  // An explicit --config must load now (missing, a directory, an error, not a config: exit 78), not fail
  // every tool later. Once started, the server reads it afresh on each call, so a fix needs no restart.
  await explicitConfig(ctx, configPath);
  const { serveStdio } = await import("../../mcp/server.ts");
  if (Deno.stdin.isTerminal()) {
    ctx.output.err(
      "hooktap mcp speaks MCP on stdin/stdout: a coding agent starts it (docs/agents.md). " +
        "Press Ctrl-C to stop.\n",
    );
  }
  await serveStdio({ cwd: ctx.cwd, configPath, signal: ctx.signal });
}
