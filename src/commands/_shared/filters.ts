/**
 * The filter options `logs`, `export` and bulk `replay` share, and their
 * values read into an {@linkcode EventFilter}. The declarations import this
 * module at start-up, so the store's filter is imported only when
 * {@linkcode filterFrom} runs.
 * @module
 */
import { lazyImport } from "../../cli/lazy.ts";
import { choice, defineOptions, type OptionsOf, time } from "../../cli/spec.ts";
import { VERDICT_NAMES } from "../../names.ts";
import type { EventFilter } from "../../query/filter.ts";

/**
 * `--endpoint`, `--filter-method`, `--since`, `--until`, `--grep`, `--where`, `--has-header`, `--provider`,
 * `--type`, `--path`, `--verdict`: one name, one meaning in every command (`-X/--method` and `-H/--header` are the
 * overrides of the commands that send).
 */
export const FILTER_OPTIONS = defineOptions({
  endpoint: {
    short: "e",
    value: "name",
    description: "only events of this endpoint",
    complete: "endpoint",
  },
  filterMethod: {
    short: "m",
    value: "method",
    description:
      "only events received with this HTTP method (renamed from --method: -X/--method is the override)",
    complete: "method",
  },
  since: {
    short: "s",
    kind: time(),
    description: "only events newer than a duration (10m, 2h, 1d) or an ISO time",
  },
  until: { kind: time(), description: "only events older than a duration (10m, 2h, 1d) or an ISO time" },
  grep: {
    short: "g",
    value: "text",
    description:
      "only events with this text in the body, a header value or the path (any case unless it has capitals)",
  },
  where: {
    short: "w",
    value: "field=value",
    repeatable: true,
    description:
      "only events whose JSON body has this field value: action=opened, data.object.id=cus_42, a!=b, a (repeatable)",
  },
  hasHeader: {
    value: "name=value",
    repeatable: true,
    description:
      "only events with this header: X-GitHub-Event=push, or a name alone (repeatable; renamed from --header: -H/--header is the override)",
  },
  provider: {
    value: "name",
    description: "only events from this sender (github, stripe, slack, ...; generic: no known sender)",
    complete: "provider",
  },
  type: {
    value: "type",
    description: "only events of this type (exact, or a prefix: issues matches issues.opened)",
  },
  path: {
    value: "path",
    description: "only events received on this path (exact, or a prefix ending in *: /hooks/*)",
  },
  verdict: { kind: choice(VERDICT_NAMES, "verdict"), description: "only events with this signature verdict" },
});

/** The parsed values of the shared filter options, typed from their declarations. */
export type FilterValues = Partial<OptionsOf<typeof FILTER_OPTIONS>>;

/**
 * The filter the options ask for, checked (a malformed value is a usage error before any work; the parser has
 * read `--since`, `--until` and `--verdict`).
 * @throws {UsageError} naming the option and the fix.
 */
export async function filterFrom(opts: FilterValues): Promise<EventFilter> {
  const values = await lazyImport<typeof import("./filter_values.ts")>(
    "src/commands/_shared/filter_values.ts",
  );
  values.checkFilterValues(opts);
  const filter: EventFilter = {};
  if (opts.endpoint !== undefined) filter.endpoint = opts.endpoint;
  if (opts.filterMethod !== undefined) filter.method = opts.filterMethod;
  if (opts.since !== undefined) filter.since = opts.since;
  if (opts.until !== undefined) filter.until = opts.until;
  if (opts.grep !== undefined) filter.grep = opts.grep;
  if (opts.where !== undefined && opts.where.length > 0) filter.where = opts.where;
  if (opts.hasHeader !== undefined && opts.hasHeader.length > 0) filter.header = opts.hasHeader;
  if (opts.provider !== undefined) {
    // Checked and made canonical by a module loaded only when asked (the declarations load none).
    const { providerFilter } = await lazyImport<typeof import("../../config/provider_name.ts")>(
      "src/config/provider_name.ts",
    );
    filter.provider = providerFilter(opts.provider, "--provider");
  }
  if (opts.type !== undefined) filter.type = opts.type;
  if (opts.path !== undefined) filter.path = opts.path;
  if (opts.verdict !== undefined) filter.verdict = opts.verdict;
  values.compileChecked(filter); // throws on a bad --where or --has-header
  return filter;
}

/** Whether any filter is set. */
export function hasFilter(filter: EventFilter): boolean {
  return Object.keys(filter).length > 0;
}
