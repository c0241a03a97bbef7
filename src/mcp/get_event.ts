/**
 * `get_event`: one stored event by id or unique prefix, whole: the request
 * exactly (method, path, query, headers in order, body as text or base64),
 * its verdict and reason, and every delivery per target with the app's
 * answers. A big body comes in pieces: `body_offset` asks for the next.
 * @module
 */
import { z } from "zod";
import type { CapturedEvent } from "../event/record.ts";
import { resolveEventLine } from "../store/read/resolve.ts";
import { readDeliveryRecords } from "./deliveries.ts";
import { type McpContext, openStore, storeOf } from "./context.ts";
import { DEFAULT_BODY_LIMIT, eventLine, FULL_EVENT_SCHEMA, fullEvent, MAX_BODY_LIMIT } from "./event_view.ts";
import { answer, type ToolAnswer } from "./result.ts";
import { defineTool } from "./tool.ts";

/** The body paging inputs of the tools that return a whole event. */
export const BODY_PAGING = {
  body_offset: z.number().int().min(0).optional().describe(
    "byte offset in the body to start from (default 0)",
  ),
  body_limit: z.number().int().min(1).max(MAX_BODY_LIMIT).optional()
    .describe(`body bytes to return at most (default ${DEFAULT_BODY_LIMIT})`),
};

/**
 * The stored event `id` (a whole id or a unique prefix), with the CLI's messages.
 * @throws {NotFoundError} when none matches; a HooktapError listing the matches when several do.
 */
export async function lookUp(ctx: McpContext, id: string): Promise<CapturedEvent> {
  return (await lookUpLine(ctx, id)).event;
}

/**
 * Like {@linkcode lookUp}, with the event's exact stored line.
 * @throws {NotFoundError} when none matches; a HooktapError listing the matches when several do.
 */
export async function lookUpLine(
  ctx: McpContext,
  id: string,
): Promise<{ event: CapturedEvent; line: string }> {
  const reader = await openStore(ctx);
  try {
    // The CLI's messages suggest `hooktap logs`; every tool error says search_events instead (./wording.ts).
    return await resolveEventLine(reader, id);
  } finally {
    reader?.[Symbol.dispose]();
  }
}

/** The answer of a tool that returns one whole event. */
export async function eventAnswer(
  ctx: McpContext,
  event: CapturedEvent,
  paging: { body_offset?: number | undefined; body_limit?: number | undefined },
  extra: Record<string, unknown> = {},
  head = "",
): Promise<ToolAnswer> {
  const records = (await readDeliveryRecords(storeOf(ctx), [event])).get(event.id);
  const full = fullEvent(event, records, paging.body_offset ?? 0, paging.body_limit ?? DEFAULT_BODY_LIMIT);
  const cut = full.body.truncated
    ? `\nThe body is cut: ${full.body.length} of ${full.body.size} bytes from ${full.body.offset}; ` +
      `ask again with body_offset ${full.body.nextOffset} for the rest.`
    : "";
  return answer({ ...extra, event: full }, `${head}${eventLine(full)}${cut}`);
}

/** The tool. */
export function getEvent(ctx: McpContext) {
  return defineTool({
    name: "get_event",
    title: "Read one stored webhook event",
    description:
      "One stored event by id (or any unique prefix of it): method, path, query, headers in arrival order, " +
      "the exact body (text, or base64 when binary; its size; a big body is cut: page with body_offset), " +
      "the signature verdict and its reason, and every delivery per target (its forward targets, then URLs it was replayed to) with the app's answers.",
    input: {
      id: z.string().min(1).describe("the event id, e.g. evt_20240501_01HXA5..., or a unique prefix"),
      ...BODY_PAGING,
    },
    output: { event: FULL_EVENT_SCHEMA },
    readOnly: true,
    async run(args) {
      return await eventAnswer(ctx, await lookUp(ctx, args.id), args);
    },
  });
}
