/**
 * `hooktap init`: writes `hooktap.config.ts`.
 * @module
 */
import { Command } from "@commander-js/extra-typings";
import { relative, resolve } from "node:path";
import { configSource, STARTER_ANSWERS, type StarterAnswers } from "../config/starter.ts";
import { CONFIG_FILE_NAME } from "../config/types.ts";
import { describeError, HooktapError, UsageError } from "../errors.ts";
import { askStarterAnswers, whyNoPrompt } from "../ui/prompts.ts";
import type { CommandContext } from "./_shared.ts";

/** Options of {@linkcode writeConfigFile}. */
export interface WriteConfigOptions {
  /** Replace an existing file. @default false */
  force?: boolean;
}

function alreadyExists(file: string): HooktapError {
  return new HooktapError(
    `${file} already exists; hooktap init does not overwrite it. Edit it, or run \`hooktap init --force\` to replace it.`,
  );
}

async function exists(file: string): Promise<boolean> {
  try {
    await Deno.lstat(file);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/** Writes a config file with `answers`; refuses to overwrite unless `force`. */
export async function writeConfigFile(
  file: string,
  answers: StarterAnswers | undefined,
  options: WriteConfigOptions = {},
): Promise<void> {
  try {
    await Deno.writeTextFile(file, configSource(answers), { createNew: !options.force });
  } catch (error) {
    if (error instanceof Deno.errors.AlreadyExists) throw alreadyExists(file);
    throw new HooktapError(
      `Cannot write ${file}: ${
        describeError(error)
      }. Check the directory's permissions (and --allow-write for Deno).`,
      { cause: error },
    );
  }
}

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
      if (!opts.force && await exists(file)) throw alreadyExists(file);
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
