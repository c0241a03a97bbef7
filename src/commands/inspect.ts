/**
 * `hooktap inspect`: one stored event in full, by id (or id prefix) or as
 * the newest event of an endpoint.
 * @module
 */
import { Command } from "@commander-js/extra-typings";
import { NotFoundError, UsageError } from "../errors.ts";
import { type CapturedEvent, decodeBody } from "../event/record.ts";
import { latestOfEndpoint } from "../store/read/latest.ts";
import type { StoreReader } from "../store/read/reader.ts";
import { tail } from "../store/read/tail.ts";
import { renderEvent } from "../ui/event_view.ts";
import { safeLine } from "../ui/sanitize.ts";
import { type CommandContext, openStore, optionalConfig, resolveEvent, warnSkipped } from "./_shared.ts";

async function _newestOfEndpoint(
  ctx: CommandContext,
  reader: StoreReader | null,
  name: string,
  configPath: string | undefined,
): Promise<CapturedEvent> {
  const result = reader === null ? { endpoints: [] as string[] } : await latestOfEndpoint(reader, name);
  if ("event" in result && result.event !== undefined) return result.event;
  const config = await optionalConfig(ctx, configPath).catch(() => null);
  const configured = config?.endpoints.map((e) => e.name) ?? [];
  if (configured.includes(name) || result.endpoints.includes(name)) {
    throw new NotFoundError(
      `Endpoint "${
        safeLine(name)
      }" has no events yet. Send one to it while \`hooktap dev\` runs, then try again.`,
    );
  }
  const names = [...new Set([...configured, ...result.endpoints])].sort();
  throw new NotFoundError(
    `There is no endpoint named "${safeLine(name)}". ` +
      (names.length === 0
        ? "No endpoints are configured and no events are stored yet."
        : `Known endpoints: ${names.map(safeLine).join(", ")}.`),
  );
}

/** The `inspect` command. */
export function inspectCommand(ctx: CommandContext) {
  return new Command("inspect")
    .description("Show one stored event in full: headers and decoded body")
    .argument("[event-id]", "the event's id, or any unique prefix of it (default: the newest event)")
    .option("-e, --endpoint <name>", "show the newest event of this endpoint")
    .option("--json", "print the stored record as one JSON line")
    .option("--body", "write only the exact raw body bytes to stdout (redirect it to a file)")
    .option("-c, --config <path>", "config file (to list the endpoint names)")
    .addHelpText(
      "after",
      "\nExamples:\n  hooktap inspect --endpoint default\n  hooktap inspect evt_20240501_01HXA5B7\n" +
        "  hooktap inspect 01HXA5 --body > payload.bin\n  hooktap inspect --json | jq .headers\n",
    )
    .action(async (id, opts) => {
      if (id !== undefined && opts.endpoint !== undefined) {
        throw new UsageError("Give an event id or --endpoint NAME, not both.");
      }
      if (opts.json && opts.body) throw new UsageError("Choose one of --json and --body.");
      const reader = await openStore(ctx);
      let event: CapturedEvent;
      try {
        if (id !== undefined) event = await resolveEvent(reader, id);
        else if (opts.endpoint !== undefined) {
          event = await _newestOfEndpoint(ctx, reader, opts.endpoint, opts.config);
        } else {
          const newest = reader === null ? [] : await tail(reader, { limit: 1 });
          if (newest[0] === undefined) {
            throw new NotFoundError("No events are stored yet. Run `hooktap logs` for how to send one.");
          }
          event = newest[0];
        }
      } finally {
        reader?.[Symbol.dispose]();
        warnSkipped(ctx, reader);
      }
      const out = ctx.output;
      if (opts.body) out.outBytes(decodeBody(event));
      else if (opts.json) out.out(JSON.stringify(event) + "\n");
      else out.out(renderEvent(event, out.colors));
    });
}
