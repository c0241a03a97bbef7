/**
 * Writes a config file (`hooktap init`, and `hooktap dev`'s first-run
 * setup), never over an existing one unless asked.
 * @module
 */
import { describeError, HooktapError } from "../errors.ts";
import { configSource, type StarterAnswers } from "./starter.ts";

/** Options of {@linkcode writeConfigFile}. */
export interface WriteConfigOptions {
  /** Replace an existing file. @default false */
  force?: boolean;
}

/** The error for a config file that is already there. */
export function alreadyExists(file: string): HooktapError {
  return new HooktapError(
    `${file} already exists; hooktap init does not overwrite it. Edit it, or run \`hooktap init --force\` to replace it.`,
  );
}

/** Whether something (file, directory, link) is at `file`. */
export async function configFileExists(file: string): Promise<boolean> {
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
