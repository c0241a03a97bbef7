/**
 * `wait_for_event`: blocks until an event matching the filters arrives in
 * the store (as `hooktap logs --follow` follows it, src/store/read/follow.ts)
 * or the timeout passes; with `since`, an already stored match in that
 * window is returned at once. Needs a running `hooktap dev` to receive.
 * @module
 */
import { z } from "zod";
import { UsageError } from "../errors.ts";
import type { CapturedEvent } from "../event/record.ts";
import { compileFilter } from "../query/filter.ts";
import { followEvents } from "../store/read/follow.ts";
import { tail } from "../store/read/tail.ts";
import { configOf, devOf, type McpContext, noDevMessage, openStore, storeOf } from "./context.ts";
import { FULL_EVENT_SCHEMA } from "./event_view.ts";
import { FILTER_SHAPE, filterOf } from "./filters.ts";
import { BODY_PAGING, eventAnswer } from "./get_event.ts";
import { answer } from "./result.ts";
import { defineTool } from "./tool.ts";

/** How often a waiting call reports progress, ms. */
const PROGRESS_MS = 5000;

/** The longest wait one call may ask for, in seconds (clients time requests out too). */
export const MAX_WAIT_SECONDS = 600;

/**
 * Refuses to wait for an endpoint the config does not have (dev, which serves the config, stores no event
 * for it), or to list or replay it when nothing of it is stored (`what` no event does: "is stored or can
 * arrive"): the CLI refuses an unknown `--endpoint` the same way. Says nothing when the config does not load
 * (doctor tells why).
 * @throws {UsageError} naming the endpoints there are.
 */
export async function refuseUnservedEndpoint(
  ctx: McpContext,
  name: string | undefined,
  what = "can arrive",
): Promise<void> {
  if (name === undefined || name === "") return; // "" is no filter (filters.ts givenFilters)
  let names: string[];
  try {
    const config = await configOf(ctx);
    if (config === null) return;
    names = config.endpoints.map((e) => e.name);
  } catch {
    return;
  }
  if (names.includes(name)) return;
  throw new UsageError(
    `No event ${what} for endpoint ${JSON.stringify(name)}: the config has no endpoint of that name ` +
      `(it has ${names.map((n) => JSON.stringify(n)).join(", ")}). list_endpoints shows them.`,
  );
}

/**
 * The filters a wait takes: search_events', but `undelivered` (an event that arrives has no delivery yet; it is
 * search_events' filter), so tools/list offers only what the tool takes.
 */
const { undelivered: _undelivered, ...WAIT_FILTERS } = FILTER_SHAPE;

/** The tool. */
export function waitForEvent(ctx: McpContext) {
  return defineTool({
    name: "wait_for_event",
    title: "Wait for a webhook event to arrive",
    description:
      "Block until an event matching the filters arrives at the `hooktap dev` running in this project, or " +
      "until timeout_seconds (default 30) pass; returns it whole, as get_event does. Filters are those of " +
      "search_events but undelivered; with `since` (e.g. 1m) an event already stored in that window is returned at once, " +
      "so a send just before the call is not missed. Start the wait, then have the sender (or the trigger " +
      "tool) send. Needs `hooktap dev` running.",
    input: {
      ...WAIT_FILTERS,
      timeout_seconds: z.number().min(0).max(MAX_WAIT_SECONDS).optional()
        .describe("longest wait (default 30)"),
      ...BODY_PAGING,
    },
    output: {
      found: z.boolean().describe("false: none arrived within the timeout"),
      waitedMs: z.number().int(),
      event: FULL_EVENT_SCHEMA.optional(),
    },
    readOnly: true,
    async run(args, signal, progress) {
      const filter = filterOf(args);
      const timeoutMs = (args.timeout_seconds ?? 30) * 1000;
      const started = performance.now();
      const waited = () => Math.round(performance.now() - started);
      const reader = await openStore(ctx);
      let from = 0;
      let stored: CapturedEvent | undefined;
      try {
        from = reader?.size ?? 0;
        if (reader !== null && filter.since !== undefined) {
          stored = (await tail(reader, { ...filter, limit: 1 }))[0];
        }
      } finally {
        reader?.[Symbol.dispose]();
      }
      if (stored !== undefined) {
        return await eventAnswer(ctx, stored, args, { found: true, waitedMs: waited() }, "Already stored: ");
      }
      // An event that arrives now is newer than any time past: `until` in the past would wait in vain.
      if (filter.until !== undefined && filter.until.getTime() <= Date.now()) {
        throw new UsageError(
          `until ${
            JSON.stringify(args.until)
          } is ${filter.until.toISOString()}, already past: no event that ` +
            "arrives now can match it. Leave until out to wait, or use search_events for the stored events.",
        );
      }
      if (await devOf(ctx) === undefined) throw new UsageError(noDevMessage("no event can arrive"));
      await refuseUnservedEndpoint(ctx, args.endpoint);
      const stop = AbortSignal.any([signal, ctx.signal, AbortSignal.timeout(Math.max(1, timeoutMs))]);
      const keep = compileFilter(filter);
      // A client that asked for progress hears every few seconds that the wait goes on (some reset their
      // request timeout on it).
      const beat = setInterval(
        () => void progress(`waiting for a matching event, ${Math.round(waited() / 1000)} s`),
        PROGRESS_MS,
      );
      try {
        for await (const event of followEvents(storeOf(ctx), from, { signal: stop, pollMs: 100 })) {
          if (keep.event(event)) {
            return await eventAnswer(ctx, event, args, { found: true, waitedMs: waited() }, "Arrived: ");
          }
        }
      } finally {
        clearInterval(beat);
      }
      if (signal.aborted || ctx.signal.aborted) throw new UsageError("The wait was cancelled.");
      const dev = await devOf(ctx);
      return answer(
        { found: false, waitedMs: waited() },
        `No matching event arrived within ${timeoutMs / 1000} s` +
          (dev === undefined ? ` (and \`hooktap dev\` is no longer running).` : ".") +
          " Check the filters with search_events, and that the sender targets the endpoint (doctor tool).",
      );
    },
  });
}
