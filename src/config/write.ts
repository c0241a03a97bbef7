/**
 * Writes a config file (`hooktap init`, and `hooktap dev`'s first-run
 * setup), never over an existing one unless asked.
 * @module
 */
import { dirname, join } from "node:path";
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

/**
 * Whether the npm package `hooktap` is installed in `dir`'s node_modules (`npm install -D hooktap`), so a
 * config written there can import its types from "hooktap". Unreadable counts as not installed.
 */
export async function hasLocalPackage(dir: string): Promise<boolean> {
  try {
    const text = await Deno.readTextFile(join(dir, "node_modules", "hooktap", "package.json"));
    return (JSON.parse(text) as { name?: unknown }).name === "hooktap";
  } catch {
    return false;
  }
}

/**
 * Writes a config file with `answers`; refuses to overwrite unless `force`. The config imports its types
 * from "hooktap" when the project has the npm package installed locally.
 */
export async function writeConfigFile(
  file: string,
  answers: StarterAnswers | undefined,
  options: WriteConfigOptions = {},
): Promise<void> {
  try {
    const typed = await hasLocalPackage(dirname(file));
    await Deno.writeTextFile(file, configSource(answers, { typed }), { createNew: !options.force });
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
