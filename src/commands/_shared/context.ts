/**
 * Wiring shared by the commands (they never import each other): the
 * context every action gets, and the config lookup they have in common.
 * @module
 */
import { lazyImport } from "../../cli/lazy.ts";
import { HooktapError, NotFoundError, UsageError } from "../../errors.ts";
import type { ResolvedConfig } from "../../config/types.ts";
import type { CapturedEvent } from "../../event/record.ts";
import { findByIdPrefix, parseIdQuery } from "../../store/read/lookup.ts";
import { DATA_DIR_NAME, type StorePaths, storePaths } from "../../store/paths.ts";
import { readLine, scanForward } from "../../store/read/lines.ts";
import { openStoreReader, type StoreReader } from "../../store/read/reader.ts";
import { plural } from "../../term/format.ts";
import { safeLine } from "../../term/sanitize.ts";
import { joinPath } from "../../text/path.ts";
import type { CommandContext } from "../../cli/context.ts";

export type { CommandContext } from "../../cli/context.ts";

/** The store of the working directory. */
export function storeOf(ctx: CommandContext): StorePaths {
  return storePaths(joinPath(ctx.cwd, DATA_DIR_NAME));
}

/** Parses a `--port` value. */
export function parsePort(value: string, flag = "--port"): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) {
    throw new UsageError(
      `${flag} must be a whole number from 0 to 65535 (0 picks a free port), got "${value}".`,
    );
  }
  return n;
}

/** The event log of the working directory opened for reading, or `null` when there is none yet. */
export function openStore(ctx: CommandContext): Promise<StoreReader | null> {
  return openStoreReader(storeOf(ctx));
}

/** Prints the one warning about lines that were not records, if any were met. */
export function warnSkipped(ctx: CommandContext, reader: StoreReader | null | undefined): void {
  if (reader == null || reader.skipped === 0) return;
  ctx.output.err(
    ctx.output.errColors.yellow(
      `warning: skipped ${plural(reader.skipped, "damaged line")} in .hooktap/events.jsonl ` +
        `(torn by a crash, or edited by hand); the other events are shown.\n`,
    ),
  );
}

/**
 * The one event whose id starts with `text` (a whole id, a prefix, or a
 * prefix of its ULID part).
 * @throws {NotFoundError} when none matches; {@linkcode HooktapError} listing the matches when several do.
 */
export async function resolveEvent(reader: StoreReader | null, text: string): Promise<CapturedEvent> {
  return (await resolveEventLine(reader, text)).event;
}

/**
 * Like {@linkcode resolveEvent}, with the event's exact stored line (without its newline).
 * @throws {NotFoundError} when none matches; {@linkcode HooktapError} listing the matches when several do.
 */
export async function resolveEventLine(
  reader: StoreReader | null,
  text: string,
): Promise<{ event: CapturedEvent; line: string }> {
  const query = parseIdQuery(text);
  const notFound = () =>
    new NotFoundError(
      `No event with id ${
        safeLine(text)
      } in .hooktap/events.jsonl. Run \`hooktap logs\` to list the stored events.`,
    );
  if (reader === null) throw notFound();
  const found = await findByIdPrefix(reader, query, { max: 10 });
  if (found.matches.length === 0) throw notFound();
  if (found.matches.length > 1) {
    const more = found.matches.length > 10 ? "\n  ... and more" : "";
    throw new HooktapError(
      `The id prefix ${safeLine(text)} is ambiguous; it matches:\n` +
        found.matches.slice(0, 10).map((m) => `  ${m.id}`).join("\n") + more +
        "\nType more characters of the id.",
    );
  }
  if (found.event === undefined) {
    throw new NotFoundError(`The line of event ${found.matches[0]!.id} is damaged and cannot be read.`);
  }
  const start = found.matches[0]!.start;
  for await (const line of scanForward(reader.file, start, reader.size)) {
    return { event: found.event, line: new TextDecoder().decode(await readLine(reader.file, line)) };
  }
  return { event: found.event, line: JSON.stringify(found.event) };
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
 * Where `dev` serves the inspector: off (`--no-ui`, `ui: false`), on the
 * given port (`--ui-port`, `ui.port`), or `port: null` for the receiver's + 1.
 * @throws {UsageError} for a bad `--ui-port`, or one equal to the receiver's port.
 */
export function uiPlan(
  opts: { ui?: boolean | undefined; uiPort?: string | undefined },
  config: Pick<ResolvedConfig, "ui">,
  receiverPort: number,
): false | { port: number | null } {
  if (opts.ui === false) {
    if (opts.uiPort !== undefined) throw new UsageError("Give --ui-port or --no-ui, not both.");
    return false;
  }
  if (opts.uiPort !== undefined) {
    const port = parsePort(opts.uiPort, "--ui-port");
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
