/**
 * `hooktap logs`: the newest stored events, one line each (or JSON Lines),
 * optionally following new ones as `hooktap dev` appends them.
 * @module
 */
import { lazyImport } from "../../cli/lazy.ts";
import type { options } from "./command.ts";
import type { Input } from "../../cli/spec.ts";
import type { CapturedEvent } from "../../event/record.ts";
import { UsageError } from "../../errors.ts";
import { compileFilter } from "../../query/filter.ts";
import { countMatches } from "../../store/read/scan.ts";
import { tail } from "../../store/read/tail.ts";
import { readDeliveriesOf } from "../../send/deliveries_read.ts";
import { deliveryJsonOf, eventDelivery } from "../../send/delivery_state.ts";
import { deliveryCell } from "../../term/delivery_view.ts";
import { eventLines } from "../../term/event_row.ts";
import { filterFrom } from "../_shared/filters.ts";
import { checkEndpointName, noEventsText } from "../_shared/hints.ts";
import { type CommandContext, explicitConfig, openStore, storeOf, warnSkipped } from "../_shared/context.ts";

/** `hooktap logs`. */
export async function run(ctx: CommandContext, input: Input<typeof options>): Promise<void> {
  const opts = input.options;
  const out = ctx.output;
  await explicitConfig(ctx, opts.config); // an explicit --config must load (exit 78), not be ignored
  const filter = await filterFrom(opts);
  const limit = opts.limit;
  if (limit < 1 && !opts.count && (!opts.follow || opts.unmatched)) {
    // Not an empty answer with exit 0: -n 0 lists nothing, except the events --follow waits for.
    throw new UsageError(
      `-n ${limit} lists no ${opts.unmatched ? "request" : "event"}: give -n 1 or more` +
        (opts.unmatched ? "." : " (or -n 0 --follow to print only the events that arrive from now on)."),
    );
  }
  if (opts.unmatched) {
    return await (await lazyImport<typeof import("./_unmatched.ts")>("src/commands/logs/_unmatched.ts"))
      .showUnmatched(ctx, opts, filter, limit);
  }
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
  // One model (src/send/delivery_state.ts) says where each event stands with each of its targets.
  const byEvent = events.some((e) => e.forward !== undefined)
    ? await readDeliveriesOf(storeOf(ctx).deliveries, events)
    : undefined;
  const cell = byEvent &&
    ((e: CapturedEvent) => deliveryCell(eventDelivery(e, byEvent.get(e.id)), e.forward));
  const json = (e: CapturedEvent) => {
    const records = byEvent?.get(e.id);
    if (e.forward === undefined && records === undefined) return JSON.stringify(e);
    return JSON.stringify({ ...e, delivery: deliveryJsonOf(eventDelivery(e, records)) });
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
