/**
 * `hooktap logs`: the newest stored events, one line each (or JSON Lines),
 * optionally following new ones as `hooktap dev` appends them.
 * @module
 */
import { starterConfig } from "../config/load.ts";
import type { ResolvedConfig } from "../config/types.ts";
import { UsageError } from "../errors.ts";
import type { CapturedEvent } from "../event/record.ts";
import { type EventFilter, matchesFilter, parseSince } from "../store/read/filter.ts";
import { followEvents } from "../store/read/follow.ts";
import { tail } from "../store/read/tail.ts";
import { eventRow, rowWidths } from "../ui/event_row.ts";
import type { options } from "../cli/commands/logs.ts";
import type { Input } from "../cli/spec.ts";
import { type CommandContext, openStore, optionalConfig, storeOf, warnSkipped } from "./_shared.ts";

function _limit(text: string): number {
  if (!/^\d+$/.test(text)) throw new UsageError(`--limit must be a whole number, got "${text}".`);
  return Number(text);
}

/** A ready `curl` command that sends a first event to the config's first endpoint. */
function _firstEventHint(config: ResolvedConfig): string {
  const endpoint = config.endpoints[0]!;
  const method = endpoint.methods[0] ?? "POST";
  const url = `http://localhost:${config.port}${endpoint.path}`;
  const send = method === "GET" || method === "HEAD"
    ? `curl ${method === "HEAD" ? "-I " : ""}${url}`
    : `curl -X ${method} ${url} -H 'content-type: application/json' -d '{"hello":"hooktap"}'`;
  return `No events yet. Start \`hooktap dev\`, then send one:\n  ${send}\n`;
}

/** `hooktap logs`. */
export async function run(ctx: CommandContext, input: Input<typeof options>): Promise<void> {
  const opts = input.options;
  const out = ctx.output;
  const filter: EventFilter = {};
  if (opts.endpoint !== undefined) filter.endpoint = opts.endpoint;
  if (opts.method !== undefined) filter.method = opts.method;
  if (opts.since !== undefined) filter.since = parseSince(opts.since);
  const limit = _limit(opts.limit);
  const filtered = Object.keys(filter).length > 0;
  const reader = await openStore(ctx);
  let events: CapturedEvent[] = [];
  try {
    if (reader !== null) events = await tail(reader, { ...filter, limit });
  } finally {
    reader?.[Symbol.dispose]();
  }
  const widths = rowWidths(events);
  const print = (e: CapturedEvent) =>
    out.out(opts.json ? JSON.stringify(e) + "\n" : eventRow(e, out.colors, widths));
  for (const e of events) print(e);
  warnSkipped(ctx, reader);
  if (events.length === 0 && !opts.follow) {
    if (filtered && reader !== null && reader.size > 0) {
      out.err("No stored events match these filters.\n");
    } else {
      const config = await optionalConfig(ctx, opts.config).catch(() => null) ?? starterConfig();
      out.err(_firstEventHint(config));
    }
    return;
  }
  if (!opts.follow) return;
  if (!opts.json) out.err(out.errColors.dim("Waiting for new events (Ctrl-C to stop)...\n"));
  const onSkip = () => out.err(out.errColors.yellow("warning: skipped a damaged line in the event log\n"));
  const from = reader?.size ?? 0;
  for await (const e of followEvents(storeOf(ctx), from, { signal: ctx.signal, onSkip })) {
    if (matchesFilter(e, filter)) print(e);
  }
}
