/**
 * Writes a config file (`hooktap init`, and `hooktap dev`'s first-run
 * setup), never over an existing one unless asked.
 * @module
 */
import { dirnameOf, joinPath } from "../text/path.ts";
import { describeError, HooktapError } from "../errors.ts";
import { configSource, type StarterAnswers } from "./starter.ts";
import { DATA_DIR_NAME } from "../store/paths.ts";
import { writeUserFile } from "../store/write/user_file.ts";
import { suggestCommand } from "../text/command_line.ts";
import { configWords } from "../text/config_words.ts";

/** Options of {@linkcode writeConfigFile}. */
export interface WriteConfigOptions {
  /** Replace an existing file. @default false */
  force?: boolean;
  /**
   * The data directory, whose files a forced write never replaces.
   * @default `.hooktap` beside the config file
   */
  dataDir?: string;
}

/** The error for a config file that is already there; its command keeps `--yes` when `yes` (init was given it). */
export function alreadyExists(file: string, cwd?: string, yes = false): HooktapError {
  return new HooktapError(
    `${file} already exists; hooktap init does not overwrite it. Edit it, or run \`${
      suggestCommand(["init", ...(yes ? ["--yes"] : []), "--force", ...configWords(file, cwd)])
    }\` to replace it.`,
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
    const text = await Deno.readTextFile(joinPath(dir, "node_modules", "hooktap", "package.json"));
    return (JSON.parse(text) as { name?: unknown }).name === "hooktap";
  } catch {
    return false;
  }
}

/**
 * Refuses to replace `file` when it is a symbolic link (its target, maybe outside the project, would be
 * written) or anything but a regular file.
 * @throws {HooktapError} naming the link and the fix.
 */
export async function refuseLinkedConfig(file: string): Promise<void> {
  const info = await Deno.lstat(file).catch(() => undefined);
  if (info === undefined || info.isFile) return;
  if (info.isSymlink) {
    const target = await Deno.readLink(file).catch(() => "elsewhere");
    throw new HooktapError(
      `${file} is a symbolic link (to ${target}); hooktap init --force never writes through a link, ` +
        `and does not replace it either. Remove the link (rm ${file}) and run it again, or edit ${target}.`,
    );
  }
  throw new HooktapError(
    `${file} is not a regular file; hooktap init --force replaces only a file. Remove it.`,
  );
}

/**
 * Writes a config file with `answers`; refuses to overwrite unless `force`. The config imports its types
 * from "hooktap" when the project has the npm package installed locally. With `force`, a link at `file`
 * is refused (never written through, never replaced), and an existing file is replaced whole (a temp file
 * renamed over it), or, when Deno may write only the file itself (the npm package), written in place only
 * if it is a regular file with one name.
 */
export async function writeConfigFile(
  file: string,
  answers: StarterAnswers | undefined,
  options: WriteConfigOptions = {},
): Promise<void> {
  try {
    const typed = await hasLocalPackage(dirnameOf(file));
    const text = configSource(answers, { typed });
    if (!options.force) await Deno.writeTextFile(file, text, { createNew: true });
    else {
      await refuseLinkedConfig(file);
      await writeUserFile(
        file,
        text,
        options.dataDir ?? joinPath(dirnameOf(file), DATA_DIR_NAME),
        "init --force:",
      );
    }
  } catch (error) {
    if (error instanceof HooktapError) throw error;
    if (error instanceof Deno.errors.AlreadyExists) throw alreadyExists(file);
    throw new HooktapError(
      `Cannot write ${file}: ${
        describeError(error)
      }. Check the directory's permissions (and --allow-write for Deno).`,
      { cause: error },
    );
  }
}
