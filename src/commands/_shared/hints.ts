/**
 * What the read commands say when there is nothing to show: no store here
 * yet (and where it would be), a config that does not load (its problem, not
 * a starter hint), an endpoint name that is neither configured nor stored.
 * Private wiring shared by `logs` and `inspect`.
 * @module
 */
import { lazyImport } from "../../cli/lazy.ts";
import { ConfigError, describeError, UsageError } from "../../errors.ts";
import type { ResolvedConfig } from "../../config/types.ts";
import { heldLockOwner } from "../../store/read/dev_lock.ts";
import type { StoreReader } from "../../store/read/reader.ts";
import { safeLine } from "../../text/sanitize.ts";
import { type CommandContext, optionalConfig, storeOf } from "./context.ts";
import { pathInside } from "../../text/path.ts";
import { didYouMean } from "../../text/suggest.ts";

/** The config, `null` when there is none, or the reason it does not load. */
export async function configOrProblem(
  ctx: CommandContext,
  path: string | undefined,
): Promise<ResolvedConfig | null | { problem: string }> {
  try {
    return await optionalConfig(ctx, path);
  } catch (error) {
    const first = error instanceof ConfigError && error.issues.length > 0
      ? `${error.message} ${error.issues[0]}`
      : describeError(error);
    return { problem: first.split("\n")[0]!.trim() };
  }
}

/**
 * A ready `curl` command that sends a first event to the config's first endpoint (on `port` when given; a
 * config's `port: 0` is known only once dev runs: `PORT` then).
 */
function _curl(config: ResolvedConfig, port?: number): string {
  const endpoint = config.endpoints[0]!;
  const method = endpoint.methods[0] ?? "POST";
  const url = `http://localhost:${port ?? (config.port === 0 ? "PORT" : config.port)}${endpoint.path}`;
  if (method === "GET" || method === "HEAD") return `curl ${method === "HEAD" ? "-I " : ""}${url}`;
  return `curl -X ${method} ${url} -H 'content-type: application/json' -d '{"hello":"hooktap"}'`;
}

/** What to say when the store has no events at all (or does not exist). */
export async function noEventsText(ctx: CommandContext, configPath: string | undefined): Promise<string> {
  // A running dev's own port (it may run with --port, or on port 0) and, given no --config, its config.
  const owner = await heldLockOwner(storeOf(ctx).lock);
  const running = typeof owner?.port === "number" ? owner.port : undefined;
  const devConfig = typeof owner?.config === "string" && owner.config !== "" ? owner.config : undefined;
  const config = await configOrProblem(ctx, configPath ?? devConfig);
  const dir = storeOf(ctx).dir;
  const where = pathInside(ctx.cwd, dir) || dir;
  let exists = true;
  try {
    await Deno.stat(dir);
  } catch {
    exists = false;
  }
  const dev = suggestCommand(["dev"]);
  const head = exists
    ? "No events yet."
    : `No events yet: there is no ${where}/ in ${ctx.cwd}. hooktap stores events in .hooktap/events.jsonl ` +
      `of the directory where \`${dev}\` runs (run this command there, or start \`${dev}\` here).`;
  if (config !== null && "problem" in config) {
    return `${head}\nThe config does not load, so \`${dev}\` cannot start: ${safeLine(config.problem)}\n` +
      `Fix it (\`${dev}\` lists every problem), then send a request.\n`;
  }
  // The config loader is imported only here: the read commands' start-up never pays for it.
  const starter = config ??
    (await lazyImport<typeof import("../../config/load.ts")>("src/config/load.ts")).starterConfig();
  if (running !== undefined) {
    return `${head}\n\`${dev}\` is running here on port ${running}; send one:\n  ${
      _curl(starter, running)
    }\n`;
  }
  const anyPort = starter.port === 0
    ? " (PORT: the one it prints; the config's port is 0, any free one)"
    : "";
  return `${head}\nStart \`${dev}\`, then send one${anyPort}:\n  ${_curl(starter)}\n`;
}

/**
 * Refuses an endpoint name that is neither in the config nor in the store's
 * index, listing the names that exist. Says nothing when the name is known,
 * or when nothing can tell (no config, no index).
 * @throws {UsageError} naming the known endpoints (an option naming no endpoint is a usage error: exit 2).
 */
export async function checkEndpointName(
  ctx: CommandContext,
  name: string,
  reader: StoreReader | null,
  configPath: string | undefined,
): Promise<void> {
  const config = await configOrProblem(ctx, configPath);
  const configured = config !== null && !("problem" in config) ? config.endpoints.map((e) => e.name) : [];
  const { readIndex } = await lazyImport<typeof import("../../store/index_file.ts")>(
    "src/store/index_file.ts",
  );
  const index = reader === null ? undefined : await readIndex(reader.paths, reader.file, reader.size);
  const stored = Object.keys(index?.latest ?? {});
  if (configured.includes(name) || stored.includes(name)) return;
  if (configured.length === 0 && index === undefined) return;
  const names = [...new Set([...configured, ...stored])].sort().map(safeLine);
  const why = config !== null && "problem" in config
    ? ` (the config does not load: ${safeLine(config.problem)})`
    : "";
  throw new UsageError(
    `There is no endpoint named "${safeLine(name)}"${why}` +
      `${didYouMean(name, names, (n) => `"${n}"`) || "."} ` +
      (names.length === 0 ? "No endpoint has events yet." : `Known endpoints: ${names.join(", ")}.`),
  );
}

export { invokedAs, shellQuote, suggestCommand } from "../../text/command_line.ts";
import { suggestCommand } from "../../text/command_line.ts";
