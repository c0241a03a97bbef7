/**
 * `hooktap init`: writes `hooktap.config.ts`.
 * @module
 */
import { dirnameOf, joinPath, pathInside, resolvePath } from "../../text/path.ts";
import { STARTER_ANSWERS, type StarterAnswers } from "../../config/starter.ts";
import { alreadyExists, configFileExists, refuseLinkedConfig, writeConfigFile } from "../../config/write.ts";
import { HooktapError, UsageError } from "../../errors.ts";
import { refuseInsideStore } from "../../store/write/user_file.ts";
import { askStarterAnswers, whyNoPrompt } from "../../term/prompts.ts";
import type { options } from "./command.ts";
import type { Input } from "../../cli/spec.ts";
import { type CommandContext, storeOf } from "../_shared/context.ts";
import { shellQuote, suggestCommand } from "../_shared/hints.ts";
import { configWords } from "../../text/config_words.ts";

/**
 * Refuses, before asking anything, a config path whose folder does not exist (`--config webhooks/x.ts`
 * before `webhooks/` is made): hooktap init writes the file, not folders. A folder it may not stat is left to
 * the write's own message.
 * @throws {HooktapError} naming the folder and the command that creates it.
 */
async function _refuseMissingFolder(cwd: string, file: string): Promise<void> {
  const dir = dirnameOf(file);
  const shown = pathInside(cwd, dir) || dir;
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(dir);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) return;
    throw new HooktapError(
      `The folder ${shown} does not exist; hooktap init writes the config file, not its folder. ` +
        `Create it (mkdir -p ${shellQuote(shown)}), then run the same command again.`,
    );
  }
  if (!info.isDirectory) throw new HooktapError(`${shown} is not a folder: give a --config path inside one.`);
}

/** `path` as a .ts file: a folder's path (or none) given the default name, else its extension replaced. */
async function _asTs(path: string, file: string): Promise<string> {
  const folder = path === "" || /[/\\]$/.test(path) ||
    await Deno.stat(file).then((info) => info.isDirectory, () => false);
  if (folder) return path === "" ? "hooktap.config.ts" : `${path.replace(/[/\\]?$/, "/")}hooktap.config.ts`;
  return path.replace(/(\.[A-Za-z0-9]+)?$/, ".ts");
}

/** `hooktap init`. */
export async function run(ctx: CommandContext, input: Input<typeof options>): Promise<void> {
  const opts = input.options;
  const file = resolvePath(ctx.cwd, opts.config);
  // First: a path in hooktap's data is wrong whatever its name (and no fix below may point into it).
  await refuseInsideStore(file, storeOf(ctx).dir, "--config");
  if (!/\.m?ts$/i.test(file)) {
    // What init writes is TypeScript (and imports hooktap's types where the npm package is installed).
    throw new UsageError(
      `hooktap init writes a TypeScript module, so --config must name a file ending in .ts (or .mts), got ${
        JSON.stringify(opts.config)
      }: use ${
        suggestCommand([
          "init",
          ...(opts.yes ? ["--yes"] : []),
          ...(opts.force ? ["--force"] : []),
          "--config",
          await _asTs(opts.config, file),
        ])
      }.`,
    );
  }
  // Refuse before asking anything, not after the user answered.
  await _refuseMissingFolder(ctx.cwd, file);
  if (await Deno.stat(file).then((info) => info.isDirectory, () => false)) {
    // Not "already exists ... --force": --force replaces only a file.
    throw new UsageError(
      `${pathInside(ctx.cwd, file) || file} is a folder: give --config the path of the file to write, ` +
        `e.g. ${
          suggestCommand([
            "init",
            "--config",
            joinPath(pathInside(ctx.cwd, file) || file, "hooktap.config.ts"),
          ])
        }.`,
    );
  }
  if (!opts.force && await configFileExists(file)) throw alreadyExists(file, ctx.cwd, opts.yes ?? false);
  if (opts.force) {
    await refuseLinkedConfig(file); // never written through, never replaced: a link is refused
  }
  const config = configWords(file, ctx.cwd); // the commands printed use the file written
  let answers: StarterAnswers | undefined;
  if (!opts.yes) {
    const why = whyNoPrompt(file);
    if (why !== undefined) {
      throw new UsageError(
        `hooktap init cannot ask its questions: ${why}. Run \`${
          suggestCommand(["init", "--yes", ...config, ...(opts.force ? ["--force"] : [])])
        }\` to write the starter config (port 8787, POST /webhook).`,
      );
    }
    answers = await askStarterAnswers("hooktap init");
  }
  await writeConfigFile(file, answers, { force: opts.force ?? false, dataDir: storeOf(ctx).dir });
  const a = answers ?? STARTER_ANSWERS;
  ctx.output.err(
    `Wrote ${
      pathInside(ctx.cwd, file) || file
    }: ${a.method} ${a.path} (${a.name}) on port ${a.port}.\nNext: ${suggestCommand(["dev", ...config])}\n`,
  );
}
