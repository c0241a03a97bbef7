/**
 * `hooktap completions bash|zsh|fish`: prints a shell completion script.
 * @module
 */
import type { options } from "./command.ts";
import type { Input } from "../../cli/spec.ts";
import { completionScript } from "../../completion/scripts.ts";
import type { CommandContext } from "../_shared/context.ts";

/** `hooktap completions`. */
export function run(ctx: CommandContext, input: Input<typeof options>): Promise<void> {
  ctx.output.out(completionScript(input.args[0] as "bash" | "zsh" | "fish"));
  return Promise.resolve();
}
