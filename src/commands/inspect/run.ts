/**
 * `hooktap inspect`: one stored event in full, by id (or id prefix) or as
 * the newest event of an endpoint.
 * @module
 */
import type { options } from "./command.ts";
import type { Input } from "../../cli/spec.ts";
import { HooktapError, NotFoundError, UsageError } from "../../errors.ts";
import { type CapturedEvent, decodeBody, headerValue } from "../../event/record.ts";
import { latestOfEndpoint } from "../../store/read/latest.ts";
import type { StoreReader } from "../../store/read/reader.ts";
import { tail } from "../../store/read/tail.ts";
import { readDeliveriesOf } from "../../send/deliveries_read.ts";
import { deliveryJsonOf, eventDelivery } from "../../send/delivery_state.ts";
import { renderDeliveries, renderTargets } from "../../term/delivery_view.ts";
import { renderEvent } from "../../term/event_view.ts";
import { schemaText } from "../../term/schema_view.ts";
import { checkSchema } from "../../providers/schema_check.ts";
import { safeLine, terminalRisk } from "../../text/sanitize.ts";
import { configOrProblem, noEventsText, suggestCommand } from "../_shared/hints.ts";
import { type CommandContext, explicitConfig, openStore, storeOf, warnSkipped } from "../_shared/context.ts";
import { resolveEvent } from "../../store/read/resolve.ts";
import { starterConfig } from "../../config/load.ts";
import { didYouMean } from "../../text/suggest.ts";

async function _newestOfEndpoint(
  ctx: CommandContext,
  reader: StoreReader | null,
  name: string,
  configPath: string | undefined,
): Promise<CapturedEvent> {
  const result = reader === null ? { endpoints: [] as string[] } : await latestOfEndpoint(reader, name);
  if ("event" in result && result.event !== undefined) return result.event;
  const config = await configOrProblem(ctx, configPath);
  const broken = config !== null && "problem" in config ? config.problem : undefined;
  // No config: dev serves the starter config, whose endpoint "default" is as real as a configured one.
  const endpoints = config === null ? starterConfig().endpoints : "problem" in config ? [] : config.endpoints;
  const configured = endpoints.map((e) => e.name);
  if (configured.includes(name) || result.endpoints.includes(name)) {
    throw new NotFoundError(
      `Endpoint "${safeLine(name)}" has no events yet. Send one to it while \`${
        suggestCommand(["dev"])
      }\` runs, then try again.`,
    );
  }
  const names = [...new Set([...configured, ...result.endpoints])].sort().map(safeLine);
  throw new UsageError(
    `There is no endpoint named "${safeLine(name)}"` +
      (broken === undefined
        ? `${didYouMean(name, names, (n) => `"${n}"`) || "."} `
        : ` (the config does not load, so its endpoints are unknown: ${safeLine(broken)}). `) +
      (names.length === 0 ? "No events are stored yet." : `Known endpoints: ${names.join(", ")}.`),
  );
}

/** `hooktap inspect`. */
export async function run(ctx: CommandContext, input: Input<typeof options>): Promise<void> {
  const opts = input.options;
  const id = input.args[0];
  if (id !== undefined && opts.endpoint !== undefined) {
    throw new UsageError("Give an event id or --endpoint NAME, not both.");
  }
  await explicitConfig(ctx, opts.config); // an explicit --config must load (exit 78), not be ignored
  const reader = await openStore(ctx);
  let event: CapturedEvent;
  try {
    if (id !== undefined) event = await resolveEvent(reader, id);
    else if (opts.endpoint !== undefined) {
      event = await _newestOfEndpoint(ctx, reader, opts.endpoint, opts.config);
    } else {
      const newest = reader === null ? [] : await tail(reader, { limit: 1 });
      if (newest[0] === undefined) throw new NotFoundError((await noEventsText(ctx, opts.config)).trimEnd());
      event = newest[0];
    }
  } finally {
    reader?.[Symbol.dispose]();
    warnSkipped(ctx, reader);
  }
  const out = ctx.output;
  if (opts.body) {
    const bytes = decodeBody(event);
    const risk = out.stdoutIsTerminal && !opts.force ? terminalRisk(bytes) : undefined;
    if (risk !== undefined) {
      throw new HooktapError(
        `Not writing the body of ${event.id} to the terminal: ${risk}. ` +
          `Save it: ${suggestCommand(["inspect", event.id, "--body"])} > body.bin, ` +
          `pipe it: ${suggestCommand(["inspect", event.id, "--body"])} | xxd, see it escaped: ` +
          `${suggestCommand(["inspect", event.id])}, ` +
          "or write it here anyway with --body --force.",
      );
    }
    out.outBytes(bytes);
    return;
  }
  const id_ = event.id;
  const deliveries = (await readDeliveriesOf(storeOf(ctx).deliveries, [event])).get(id_) ?? [];
  // One model (src/send/delivery_state.ts): each forward target's state; sends elsewhere are their own.
  const summary = eventDelivery(event, deliveries);
  const targets = event.forward !== undefined ? summary.targets : undefined;
  // Warn-only: does the payload match its provider's published schema (loaded only for such a provider)?
  const schema = await checkSchema({
    provider: event.provider,
    type: event.type,
    body: decodeBody(event),
    contentType: headerValue(event.headers, "content-type"),
  });
  if (opts.json) {
    out.out(
      JSON.stringify({
        ...event,
        ...(deliveries.length > 0 ? { deliveries } : {}),
        ...(targets !== undefined ? { targets } : {}),
        ...(schema !== undefined ? { schemaCheck: schema } : {}),
        ...(event.forward !== undefined || deliveries.length > 0
          ? { delivery: deliveryJsonOf(summary) }
          : {}),
      }) + "\n",
    );
  } else {
    out.out(
      renderEvent(event, out.colors, undefined, deliveries.find((d) => d.source === "relay")) +
        schemaText(schema, out.colors) +
        renderTargets(targets, out.colors, summary.others) +
        renderDeliveries(deliveries, out.colors),
    );
  }
}
