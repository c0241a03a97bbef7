/**
 * The inspector's query string read into the store's filter
 * ({@linkcode EventFilter}, the one `hooktap logs` uses), with the CLI's
 * rules: `type` by exact match or prefix, a missing verdict is `unsigned`,
 * `q` is `--grep` (smart case over path, query, headers and body), `since`
 * and `until` take durations or ISO times, `where` and `header` repeat.
 * Pure.
 * @module
 */
import { UsageError } from "../../errors.ts";
import {
  compileFilter,
  type EventFilter,
  parseDeliveryState,
  parseSince,
  parseVerdict,
} from "../../query/filter.ts";

/** A filter value in a query string is wrong (the API answers 400 with its message). */
export class FilterError extends Error {
  override name = "FilterError";
}

/** Query parameters read as filters, by their CLI flag. */
const SINGLE = [
  "endpoint",
  "method",
  "provider",
  "type",
  "verdict",
  "delivery",
  "since",
  "until",
  "q",
] as const;

/** The parameters that may repeat (each value must hold). */
const REPEATABLE: readonly string[] = ["where", "header"];

/** The filter parameters: those read here, and `where` and `header` (which repeat). */
export const FILTER_PARAMS: readonly string[] = [...SINGLE, ...REPEATABLE];

/** The API's name for a parameter a script may take from the CLI's options (`--grep`, `--has-header`, ...). */
const CLI_NAMES: Readonly<Record<string, string>> = {
  grep: "q",
  "has-header": "header",
  has_header: "header",
  hasHeader: "header",
  "filter-method": "method",
  filter_method: "method",
  filterMethod: "method",
  undelivered: "delivery=pending or delivery=failed",
  n: "limit",
};

/**
 * Refuses a query string with a parameter the route does not read (it would be ignored, and the list
 * would say nothing of it): names each, with the API's name when it is a CLI option's, and the known ones.
 * Refuses too a parameter that takes one value given more than once (only `where` and `header` repeat).
 * @throws {FilterError} naming the unknown or repeated parameters.
 */
export function checkParams(params: URLSearchParams, known: readonly string[]): void {
  const unknown = [...new Set(params.keys())].filter((k) => !known.includes(k));
  if (unknown.length > 0) {
    const named = unknown.map((k) => {
      const api = Object.hasOwn(CLI_NAMES, k) ? CLI_NAMES[k] : undefined;
      return `"${k}"${api !== undefined ? ` (the API's is ${api})` : ""}`;
    });
    throw new FilterError(
      `Unknown parameter${unknown.length === 1 ? "" : "s"} ${named.join(", ")}. ` +
        (known.length === 0 ? "This route takes no parameters." : `Known parameters: ${known.join(", ")}.`),
    );
  }
  // A single-valued parameter given twice would be read as its first value, the second ignored unsaid.
  const repeated = known.filter((k) => !REPEATABLE.includes(k) && params.getAll(k).length > 1);
  if (repeated.length > 0) {
    throw new FilterError(
      `${repeated.map((k) => `"${k}"`).join(", ")} ${repeated.length === 1 ? "is" : "are"} given more than ` +
        `once; ${repeated.length === 1 ? "it takes" : "each takes"} one value (only ${
          REPEATABLE.join(" and ")
        } repeat, all of them holding).`,
    );
  }
}

/**
 * Reads the filters from a query string; blank values count as unset.
 * @throws {FilterError} naming the parameter and what it takes, for a bad time, verdict, delivery state,
 * `where` or `header`.
 */
export function filterFromQuery(params: URLSearchParams, now: Date = new Date()): EventFilter {
  const value: Partial<Record<(typeof SINGLE)[number], string>> = {};
  for (const name of SINGLE) {
    const v = params.get(name);
    // The search text is kept as typed (a space is a term); other blank values are unset.
    if (name === "q" ? v !== null && v !== "" : v !== null && v.trim() !== "") {
      value[name] = name === "q" ? v! : v!.trim();
    }
  }
  const many = (name: string) => params.getAll(name).filter((v) => v.trim() !== "");
  const f: EventFilter = {};
  try {
    if (value.endpoint !== undefined) f.endpoint = value.endpoint;
    if (value.method !== undefined) f.method = value.method;
    if (value.provider !== undefined) f.provider = value.provider;
    if (value.type !== undefined) f.type = value.type;
    if (value.verdict !== undefined) f.verdict = parseVerdict(value.verdict);
    if (value.delivery !== undefined) f.delivery = parseDeliveryState(value.delivery);
    if (value.since !== undefined) f.since = parseSince(value.since, now);
    if (value.until !== undefined) f.until = parseSince(value.until, now, "--until");
    if (value.q !== undefined) f.grep = value.q;
    const where = many("where");
    if (where.length > 0) f.where = where;
    const header = many("header");
    if (header.length > 0) f.header = header;
    compileFilter(f, { deliveryOf: () => "none" }); // throws on a bad where or header
  } catch (error) {
    // The CLI's messages name its flags; here they are query parameters.
    if (error instanceof UsageError) throw new FilterError(error.message.replace(/--(\w+)/g, "$1"));
    throw error;
  }
  return f;
}
