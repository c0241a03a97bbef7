/**
 * What every tool of `hooktap mcp` works on: the project directory (its
 * store and config, as the CLI finds them there) and the server's stop
 * signal. The config is read afresh on each call that needs it, so an edit
 * is seen at once, as a new CLI command would see it.
 * @module
 */
import type { ResolvedConfig } from "../config/types.ts";
import { DATA_DIR_NAME, type StorePaths, storePaths } from "../store/paths.ts";
import { openStoreReader, type StoreReader } from "../store/read/reader.ts";
import { joinPath } from "../text/path.ts";
import { type RunningDev, runningDev } from "../store/read/dev_lock.ts";

/** The server's surroundings. */
export interface McpContext {
  /** The project directory: `hooktap.config.ts` and `.hooktap/` are found from here. */
  readonly cwd: string;
  /** `--config`: the config file, when not the default. */
  readonly configPath?: string | undefined;
  /** Aborted when the server stops. */
  readonly signal: AbortSignal;
}

/** The store of the project. */
export function storeOf(ctx: McpContext): StorePaths {
  return storePaths(joinPath(ctx.cwd, DATA_DIR_NAME));
}

/** The event log opened for reading, or `null` when there is none yet. */
export function openStore(ctx: McpContext): Promise<StoreReader | null> {
  return openStoreReader(storeOf(ctx));
}

/** The config when there is one; `null` when there is no file at the default path. */
export async function configOf(ctx: McpContext): Promise<ResolvedConfig | null> {
  const { loadConfig } = await import("../config/load.ts");
  return await loadConfig({ cwd: ctx.cwd, path: ctx.configPath });
}

/** The `hooktap dev` running in the project, if any. */
export function devOf(ctx: McpContext): Promise<RunningDev | undefined> {
  return runningDev(storeOf(ctx));
}

/** The message when a tool needs `dev` and none runs. */
export function noDevMessage(what: string): string {
  return `No \`hooktap dev\` is running in this directory, so ${what}. Start it in a terminal (hooktap dev, ` +
    "or npx hooktap dev) in this project; reading stored events (search_events, get_event) works without it.";
}
