/**
 * The filter options' values no event can match, refused before anything is read (./filters.ts loads this
 * only when it reads them: a command's declaration loads nothing but the CLI engine).
 * @module
 */
import { UsageError } from "../../errors.ts";
import { safeLine } from "../../text/sanitize.ts";
import { compileFilter, type EventFilter } from "../../query/filter.ts";
import type { FilterValues } from "./filters.ts";

/** An HTTP method: a token (RFC 9110), as the receiver stores it. */
const METHOD = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Refuses the values no event can match, which would otherwise list nothing with exit 0, or (an empty
 * `--grep`) everything: an empty text, a method that is no HTTP token, a path without its "/", and a time
 * range that ends before it starts.
 * @throws {UsageError} naming the option and the fix.
 */
export function checkFilterValues(opts: FilterValues): void {
  for (
    const [flag, value] of [["--grep", opts.grep], ["--type", opts.type], ["--path", opts.path]] as const
  ) {
    if (value === "") throw new UsageError(`${flag} is empty: give what to look for, or leave ${flag} out.`);
  }
  if (opts.filterMethod !== undefined && !METHOD.test(opts.filterMethod)) {
    throw new UsageError(
      `--filter-method must be an HTTP method like POST or GET, got "${safeLine(opts.filterMethod)}".`,
    );
  }
  if (opts.path !== undefined && !opts.path.startsWith("/")) {
    throw new UsageError(
      `--path must start with "/" (events are stored with their path as received), got "${
        safeLine(opts.path)
      }": use "/${safeLine(opts.path)}".`,
    );
  }
  if (opts.since !== undefined && opts.until !== undefined && opts.since.getTime() >= opts.until.getTime()) {
    throw new UsageError(
      `--since ${opts.since.toISOString()} is not before --until ${opts.until.toISOString()}, so no event ` +
        "is in between: --since is the earlier bound (events newer than it), --until the later one " +
        "(e.g. --since 2h --until 1h).",
    );
  }
}

/**
 * Compiles `filter` to check it.
 * @throws {UsageError} for a malformed --where or --has-header (the query language names the header filter
 * as the inspector's API does, `header`; here it is --has-header).
 */
export function compileChecked(filter: EventFilter): void {
  try {
    compileFilter(filter);
  } catch (error) {
    if (error instanceof UsageError) {
      throw new UsageError(error.message.replace(/^--header /, "--has-header "));
    }
    throw error;
  }
}
