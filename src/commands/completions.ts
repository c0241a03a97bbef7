/**
 * `hooktap completions bash|zsh|fish|powershell`: prints a shell completion script.
 * @module
 */
import { Argument, Command } from "@commander-js/extra-typings";
import type { Command as PlainCommand } from "commander";
import { completionScript, SHELLS } from "../completion/tree.ts";
import type { CommandContext } from "./_shared.ts";

/** The `completions` command. */
export function completionsCommand(ctx: CommandContext) {
  return new Command("completions")
    .description("Print a shell completion script (commands, options, endpoint names, recent event ids)")
    .addArgument(new Argument("<shell>", "the shell to complete in").choices(SHELLS))
    .addHelpText(
      "after",
      "\nThe script runs `hooktap complete -- ...` at each TAB, so `hooktap` must be on your PATH\n" +
        "(deno install -g -A -n hooktap jsr:@hooktap/hooktap/cli).\n" +
        "\nExamples:\n  source <(hooktap completions bash)            # in ~/.bashrc\n" +
        "  hooktap completions zsh > ~/.zfunc/_hooktap   # with fpath+=(~/.zfunc) in ~/.zshrc\n" +
        "  hooktap completions fish > ~/.config/fish/completions/hooktap.fish\n",
    )
    .action(async (shell, _opts, cmd) => {
      const program = cmd.parent as unknown as PlainCommand;
      ctx.output.out(await completionScript(program, shell));
    });
}
