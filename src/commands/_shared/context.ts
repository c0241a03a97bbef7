/**
 * Wiring shared by the commands (they never import each other): the
 * context every action gets, and the config lookup they have in common.
 * @module
 */
import { lazyImport } from "../../cli/lazy.ts";
import { UsageError } from "../../errors.ts";
import type { ResolvedConfig } from "../../config/types.ts";
import { DATA_DIR_NAME, type StorePaths, storePaths } from "../../store/paths.ts";
import { openStoreReader, type StoreReader } from "../../store/read/reader.ts";
import { classifySkipped, skippedWarnings } from "../../store/read/skipped.ts";
import { joinPath } from "../../text/path.ts";
import type { CommandContext } from "../../cli/context.ts";

export type { CommandContext } from "../../cli/context.ts";

/** The store of the working directory. */
export function storeOf(ctx: CommandContext): StorePaths {
  return storePaths(joinPath(ctx.cwd, DATA_DIR_NAME));
}

/**
 * Parses a `--port` value (`hub`'s; the other commands declare `kind: port()` and get a number).
 * @throws {UsageError} for anything but a whole number from 0 to 65535.
 */
export function parsePort(value: string, flag = "--port"): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) {
    throw new UsageError(
      `${flag} must be a whole number from 0 to 65535 (0 picks a free port), got "${value}".`,
    );
  }
  return n;
}

/**
 * The bytes of a `--body-file` (relative to the working directory), for the commands that send.
 * @throws {UsageError} naming the file and why it cannot be read.
 */
export async function readBodyFile(ctx: CommandContext, file: string): Promise<Uint8Array> {
  try {
    return await Deno.readFile(file.startsWith("/") ? file : `${ctx.cwd}/${file}`);
  } catch (error) {
    throw new UsageError(
      `--body-file ${file} cannot be read: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** The event log of the working directory opened for reading, or `null` when there is none yet. */
export function openStore(ctx: CommandContext): Promise<StoreReader | null> {
  return openStoreReader(storeOf(ctx));
}

/** Prints the one warning about lines that were not records, if any were met. */
export function warnSkipped(ctx: CommandContext, reader: StoreReader | null | undefined): void {
  if (reader == null || reader.skipped === 0) return;
  // A last line the running dev is still writing is no damage: it is shown once it is whole.
  for (const text of skippedWarnings(classifySkipped(reader))) {
    ctx.output.err(ctx.output.errColors.yellow(`warning: ${text}\n`));
  }
}

/**
 * The config when there is one; `null` when there is no file at the default path.
 * The loader is imported on first use, so commands that need no config never load it.
 */
export async function optionalConfig(
  ctx: CommandContext,
  path: string | undefined,
): Promise<ResolvedConfig | null> {
  const { loadConfig } = await lazyImport<typeof import("../../config/load.ts")>("src/config/load.ts");
  return loadConfig({ cwd: ctx.cwd, path });
}

/**
 * The config an explicit `--config` names, loaded at the command's start: a path that is missing, a
 * directory, or a file that does not load or validate stops the command there with the loader's message
 * and exit code (a `ConfigError`, 78), as `dev` refuses it, instead of a command that goes on without it.
 * `undefined` without `--config`: the command keeps its own rule for the default `hooktap.config.ts`.
 * @throws {ConfigError} naming the file and what is wrong with it.
 */
export async function explicitConfig(
  ctx: CommandContext,
  path: string | undefined,
): Promise<ResolvedConfig | undefined> {
  if (path === undefined) return undefined;
  return (await optionalConfig(ctx, path)) ?? undefined; // null only for the default path, not given here
}

/**
 * Where `dev` serves the inspector: off (`--no-ui`, `ui: false`), on the
 * given port (`--ui-port`, `ui.port`), or `port: null` for the receiver's + 1.
 * @throws {UsageError} for `--ui-port` with `--no-ui`, or equal to the receiver's port.
 */
export function uiPlan(
  opts: { ui?: boolean | undefined; uiPort?: number | undefined },
  config: Pick<ResolvedConfig, "ui">,
  receiverPort: number,
): false | { port: number | null } {
  if (opts.ui === false) {
    if (opts.uiPort !== undefined) throw new UsageError("Give --ui-port or --no-ui, not both.");
    return false;
  }
  if (opts.uiPort !== undefined) {
    const port = opts.uiPort;
    if (port !== 0 && port === receiverPort) {
      throw new UsageError(
        `--ui-port must differ from the receiver's port ${port}: a tunnel to the receiver would publish the ` +
          `inspector. Use --ui-port ${port + 1}.`,
      );
    }
    return { port };
  }
  return config.ui;
}
