/**
 * The filters of `search_events`, `wait_for_event` and `replay`: the `logs`
 * filters as tool inputs, read into the store's one filter language
 * (src/query/filter.ts) with the CLI's checks and messages.
 * @module
 */
import { z } from "zod";
import { UsageError } from "../errors.ts";
import { providerFilter } from "../config/provider_name.ts";
import { VERDICT_NAMES } from "../names.ts";
import { compileFilter, type EventFilter, parseSince, parseVerdict } from "../query/filter.ts";

/** The filter inputs, as a zod shape (their JSON Schema is derived from it). */
export const FILTER_SHAPE = {
  endpoint: z.string().optional().describe("only events of this endpoint (its name in hooktap.config.ts)"),
  type: z.string().optional().describe("event type, exact or a prefix: `issues` matches `issues.opened`"),
  provider: z.string().optional().describe(
    "sender: github, stripe, slack, ... (an alias such as svix works)",
  ),
  verdict: z.enum(VERDICT_NAMES).optional()
    .describe("signature verdict at receipt"),
  path: z.string().optional().describe("request path, exact or a prefix ending in *: /hooks/*"),
  method: z.string().optional().describe("HTTP method received (any case)"),
  since: z.string().optional().describe("only events newer than a duration (10m, 2h, 1d) or an ISO time"),
  until: z.string().optional().describe("only events older than a duration (10m, 2h, 1d) or an ISO time"),
  text: z.string().optional()
    .describe("text in the body, a header value or the path (any case unless it has capitals)"),
  where: z.array(z.string()).optional()
    .describe("JSON body field tests, all must hold: action=opened, data.object.id=cus_42, a!=b, a"),
  has_header: z.array(z.string()).optional()
    .describe("headers the event must have: X-GitHub-Event=push, or a name alone"),
  undelivered: z.boolean().optional()
    .describe("only forwarded events never delivered (pending, or every attempt failed)"),
};

/** The filter inputs' values. */
export type FilterInput = {
  [K in keyof typeof FILTER_SHAPE]?: z.infer<(typeof FILTER_SHAPE)[K]> | undefined;
};

/**
 * The store's filter for `input` (without `undelivered`, which needs the deliveries log), checked.
 * @throws {UsageError} naming the input and the fix.
 */
export function filterOf(given: FilterInput, now: Date = new Date()): EventFilter {
  const input = givenFilters(given);
  const filter: EventFilter = {};
  if (input.endpoint !== undefined) filter.endpoint = input.endpoint;
  if (input.method !== undefined) filter.method = input.method;
  if (input.since !== undefined) filter.since = parseSince(input.since, now, "since");
  if (input.until !== undefined) filter.until = parseSince(input.until, now, "until");
  if (input.text !== undefined) filter.grep = input.text;
  if (input.where !== undefined && input.where.length > 0) filter.where = input.where;
  if (input.has_header !== undefined && input.has_header.length > 0) filter.header = input.has_header;
  if (input.provider !== undefined) filter.provider = providerFilter(input.provider, "provider");
  if (input.type !== undefined) filter.type = input.type;
  if (input.path !== undefined) filter.path = input.path;
  if (input.verdict !== undefined) filter.verdict = parseVerdict(input.verdict);
  try {
    compileFilter(filter);
  } catch (error) {
    // The CLI's message names its flags (--where, --header); here they are inputs.
    if (error instanceof UsageError) {
      throw new UsageError(error.message.replaceAll("--header", "has_header").replaceAll("--where", "where"));
    }
    throw error;
  }
  return filter;
}

/**
 * The filters `input` sets. A filter given empty (`""`, `[]`) or `false` sets nothing: agents often send every
 * input of a schema, with its empty value for those they do not mean (`"undelivered": false` beside an `id`).
 */
export function givenFilters(input: FilterInput): FilterInput {
  const given: Record<string, unknown> = {};
  for (const key of Object.keys(FILTER_SHAPE) as (keyof FilterInput)[]) {
    const value = input[key];
    if (value === undefined || value === false || value === "") continue;
    if (Array.isArray(value) && value.length === 0) continue;
    given[key] = value;
  }
  return given as FilterInput;
}

/** Whether any filter input is set (an empty or `false` one is not: {@linkcode givenFilters}). */
export function hasFilterInput(input: FilterInput): boolean {
  return Object.keys(givenFilters(input)).length > 0;
}
