/**
 * `hooktap logs`: the newest stored events, one line each (or JSON Lines),
 * optionally following new ones as `hooktap dev` appends them.
 * @module
 */
import { lazyImport } from "../../cli/lazy.ts";
import type { options } from "./command.ts";
import type { Input } from "../../cli/spec.ts";
import { UsageError } from "../../errors.ts";
import type { CapturedEvent } from "../../event/record.ts";
import { compileFilter } from "../../store/read/filter.ts";
import { countMatches } from "../../store/read/scan.ts";
import { tail } from "../../store/read/tail.ts";
import { deliveriesByEvent, readDeliveries, summarize, targetOutcomes } from "../../send/deliveries_read.ts";
import { deliveryCell, targetsCell } from "../../term/delivery_view.ts";
import { eventLines } from "../../term/event_row.ts";
import { filterFrom } from "../_shared/filters.ts";
import { checkEndpointName, noEventsText } from "../_shared/hints.ts";
import { type CommandContext, openStore, storeOf, warnSkipped } from "../_shared/context.ts";

function _limit(text: string): number {
  if (!/^\d+$/.test(text)) throw new UsageError(`--limit must be a whole number, got "${text}".`);
  return Number(text);
}

/** `hooktap logs`. */
export async function run(ctx: CommandContext, input: Input<typeof options>): Promise<void> {
  const opts = input.options;
  const out = ctx.output;
  const filter = await filterFrom(opts);
  const limit = _limit(opts.limit);
  if (opts.unmatched) {
    return await (await lazyImport<typeof import("./_unmatched.ts")>("src/commands/logs/_unmatched.ts"))
      .showUnmatched(ctx, opts, filter, limit);
  }
  if (opts.count && opts.follow) throw new UsageError("Choose one of --count and --follow.");
  const reader = await openStore(ctx);
  if (opts.count) {
    try {
      out.out(`${reader === null ? 0 : await countMatches(reader, compileFilter(filter))}\n`);
    } finally {
      reader?.[Symbol.dispose]();
    }
    warnSkipped(ctx, reader);
    return;
  }
  let events: CapturedEvent[] = [];
  try {
    if (reader !== null) events = await tail(reader, { ...filter, limit });
    if (events.length === 0 && opts.endpoint !== undefined && limit > 0) {
      await checkEndpointName(ctx, opts.endpoint, reader, opts.config);
    }
  } finally {
    reader?.[Symbol.dispose]();
  }
  // Forwarding: a delivery column when any listed event was forwarded (read once; --follow shows pending).
  const byEvent = events.some((e) => e.forward !== undefined)
    ? deliveriesByEvent(await readDeliveries(storeOf(ctx).deliveries))
    : undefined;
  const cell = byEvent &&
    ((e: CapturedEvent) =>
      e.forward?.targets !== undefined
        ? targetsCell(targetOutcomes(e, byEvent.get(e.id))!)
        : deliveryCell(summarize(byEvent.get(e.id)), e.forward !== undefined));
  const json = (e: CapturedEvent) => {
    const s = byEvent && summarize(byEvent.get(e.id));
    // Several targets or rules: every target's outcome ([] when no rule matched).
    const targets = byEvent && e.forward?.targets !== undefined
      ? targetOutcomes(e, byEvent.get(e.id))
      : undefined;
    if (s === undefined && targets === undefined) return JSON.stringify(e);
    const last = s?.last;
    return JSON.stringify({
      ...e,
      delivery: {
        status: last?.status ?? null,
        outcome: last?.outcome ?? (targets?.length === 0 ? "none" : "pending"),
        attempts: s?.attempts ?? 0,
        ...(targets !== undefined ? { targets } : {}),
      },
    });
  };
  const print = (list: readonly CapturedEvent[], sample: readonly CapturedEvent[] = []) =>
    out.out(
      opts.json
        ? list.map((e) => json(e) + "\n").join("")
        : eventLines(list, out.colors, out.columns(), sample, cell).map((l) => l + "\n").join(""),
    );
  print(events);
  warnSkipped(ctx, reader);
  if (events.length === 0 && !opts.follow && limit > 0) {
    const empty = reader === null || reader.size === 0;
    out.err(empty ? await noEventsText(ctx, opts.config) : "No stored events match these filters.\n");
    return;
  }
  if (!opts.follow) return;
  if (!opts.json) out.err(out.errColors.dim("Waiting for new events (Ctrl-C to stop)...\n"));
  const onSkip = () => out.err(out.errColors.yellow("warning: skipped a damaged line in the event log\n"));
  const from = reader?.size ?? 0;
  const keep = compileFilter(filter);
  const { followEvents } = await lazyImport<typeof import("../../store/read/follow.ts")>(
    "src/store/read/follow.ts",
  );
  for await (const e of followEvents(storeOf(ctx), from, { signal: ctx.signal, onSkip })) {
    if (keep.event(e)) print([e], events.slice(-20));
  }
}
