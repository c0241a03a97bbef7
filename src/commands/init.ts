/**
 * `hooktap init`: writes `hooktap.config.ts`.
 * @module
 */
import { Command } from "@commander-js/extra-typings";
import { relative, resolve } from "node:path";
import { STARTER_ANSWERS, type StarterAnswers } from "../config/starter.ts";
import { alreadyExists, configFileExists, writeConfigFile } from "../config/write.ts";
import { CONFIG_FILE_NAME } from "../config/types.ts";
import { UsageError } from "../errors.ts";
import { askStarterAnswers, whyNoPrompt } from "../ui/prompts.ts";
import type { CommandContext } from "./_shared.ts";

/** The `init` command. */
export function initCommand(ctx: CommandContext) {
  return new Command("init")
    .description("Write a hooktap.config.ts (asks in a terminal; --yes takes the starter config)")
    .option("-y, --yes", "write the starter config without asking (port 8787, POST /webhook)")
    .option("-f, --force", "overwrite an existing config file")
    .option("-c, --config <path>", "where to write the config", CONFIG_FILE_NAME)
    .addHelpText(
      "after",
      "\nExamples:\n  hooktap init --yes\n  hooktap init --config webhooks/hooktap.config.ts --force\n",
    )
    .action(async (opts) => {
      const file = resolve(ctx.cwd, opts.config);
      // Refuse before asking anything, not after the user answered.
      if (!opts.force && await configFileExists(file)) throw alreadyExists(file);
      let answers: StarterAnswers | undefined;
      if (!opts.yes) {
        const why = whyNoPrompt(file);
        if (why !== undefined) {
          throw new UsageError(
            `hooktap init cannot ask its questions: ${why}. Run \`hooktap init --yes\` to write the starter config (port 8787, POST /webhook).`,
          );
        }
        answers = await askStarterAnswers("hooktap init");
      }
      await writeConfigFile(file, answers, { force: opts.force ?? false });
      const a = answers ?? STARTER_ANSWERS;
      ctx.output.err(
        `Wrote ${
          relative(ctx.cwd, file) || file
        }: ${a.method} ${a.path} (${a.name}) on port ${a.port}.\nNext: hooktap dev\n`,
      );
    });
}
