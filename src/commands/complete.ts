/**
 * `hooktap complete -- WORDS...` (hidden): what the completion scripts call
 * at each TAB. Prints the candidates for the last word, one per line, in
 * the format `@bomb.sh/tab`'s scripts read. Never fails: a broken config or
 * an unreadable store just means fewer candidates.
 * @module
 */
import { Command } from "@commander-js/extra-typings";
import type { Command as PlainCommand } from "commander";
import { completeWords } from "../completion/tree.ts";
import { tail } from "../store/read/tail.ts";
import { type CommandContext, openStore, optionalConfig } from "./_shared.ts";

async function _data(ctx: CommandContext): Promise<{ endpoints: string[]; eventIds: string[] }> {
  const config = await optionalConfig(ctx, undefined).catch(() => null);
  const reader = await openStore(ctx).catch(() => null);
  let recent: { id: string; endpoint: string }[] = [];
  try {
    if (reader !== null) recent = await tail(reader, { limit: 50 });
  } catch {
    // fewer candidates
  } finally {
    reader?.[Symbol.dispose]();
  }
  const endpoints = new Set([
    ...(config?.endpoints.map((e) => e.name) ?? []),
    ...recent.map((e) => e.endpoint),
  ]);
  return { endpoints: [...endpoints].sort(), eventIds: recent.slice(-20).reverse().map((e) => e.id) };
}

/** The hidden `complete` command. */
export function completeCommand(ctx: CommandContext) {
  return new Command("complete")
    .description("Print completion candidates (called by the completion scripts)")
    .argument("[words...]", "the words typed so far")
    .addHelpText("after", "\nExample:\n  hooktap complete -- inspect --endpoint ''\n")
    .action(async (words, _opts, cmd) => {
      const program = cmd.parent as unknown as PlainCommand;
      ctx.output.out(await completeWords(program, words, await _data(ctx)));
    });
}
