/**
 * Reads the shared filter options (src/cli/commands/_filters.ts) into an {@linkcode EventFilter}.
 * @module
 */
import { compileFilter, type EventFilter, parseSince, parseVerdict } from "../store/read/filter.ts";

/** The parsed values of the shared filter options. */
export interface FilterValues {
  endpoint?: string | undefined;
  filterMethod?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
  grep?: string | undefined;
  where?: string[];
  hasHeader?: string[];
  provider?: string | undefined;
  type?: string | undefined;
  verdict?: string | undefined;
}

/**
 * The filter the options ask for, checked (a malformed value is a usage error before any work).
 * @throws {UsageError} naming the option and the fix.
 */
export function filterFrom(opts: FilterValues, now: Date = new Date()): EventFilter {
  const filter: EventFilter = {};
  if (opts.endpoint !== undefined) filter.endpoint = opts.endpoint;
  if (opts.filterMethod !== undefined) filter.method = opts.filterMethod;
  if (opts.since !== undefined) filter.since = parseSince(opts.since, now);
  if (opts.until !== undefined) filter.until = parseSince(opts.until, now, "--until");
  if (opts.grep !== undefined) filter.grep = opts.grep;
  if (opts.where !== undefined && opts.where.length > 0) filter.where = opts.where;
  if (opts.hasHeader !== undefined && opts.hasHeader.length > 0) filter.header = opts.hasHeader;
  if (opts.provider !== undefined) filter.provider = opts.provider;
  if (opts.type !== undefined) filter.type = opts.type;
  if (opts.verdict !== undefined) filter.verdict = parseVerdict(opts.verdict);
  compileFilter(filter); // throws on a bad --where or --header
  return filter;
}

/** Whether any filter is set. */
export function hasFilter(filter: EventFilter): boolean {
  return Object.keys(filter).length > 0;
}
