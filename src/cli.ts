/**
 * The command tree. Each command lives in its own file under `commands/`;
 * this file only assembles them.
 * @module
 */
import { Command } from "@commander-js/extra-typings";
import denoJson from "../deno.json" with { type: "json" };
import { completeCommand } from "./commands/complete.ts";
import { completionsCommand } from "./commands/completions.ts";
import { devCommand } from "./commands/dev.ts";
import { initCommand } from "./commands/init.ts";
import { inspectCommand } from "./commands/inspect.ts";
import { logsCommand } from "./commands/logs.ts";
import { replayCommand } from "./commands/replay.ts";
import type { CommandContext } from "./commands/_shared.ts";

/** hooktap's version, from deno.json. */
export const VERSION: string = denoJson.version;

/** Builds the `hooktap` program for one run. */
export function buildProgram(ctx: CommandContext): Command {
  const width = () => (Deno.stdout.isTerminal() ? Math.min(Deno.consoleSize().columns, 100) : 80);
  const program = new Command("hooktap")
    .description(
      "Receive webhooks on your own machine: capture every request to .hooktap/events.jsonl, then browse and replay it.",
    )
    .version(VERSION, "-V, --version", "print hooktap's version")
    .helpOption("-h, --help", "show help for a command")
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => ctx.output.out(s),
      writeErr: (s) => ctx.output.err(s),
      getOutHelpWidth: width,
      getErrHelpWidth: width,
      getOutHasColors: () => false,
      getErrHasColors: () => false,
    })
    .addHelpText(
      "after",
      "\nQuick start:\n  hooktap init --yes      write hooktap.config.ts (POST /webhook on port 8787)\n" +
        "  hooktap dev             receive; in another terminal: ngrok http 8787\n" +
        "  hooktap logs            list what arrived\n",
    );
  for (
    const make of [initCommand, devCommand, logsCommand, inspectCommand, replayCommand, completionsCommand]
  ) {
    program.addCommand(make(ctx) as unknown as Command);
  }
  program.addCommand(completeCommand(ctx) as unknown as Command, { hidden: true }); // called by completion scripts
  for (const command of program.commands) {
    command.exitOverride().configureOutput(program.configureOutput()).showSuggestionAfterError(true);
  }
  return program;
}
