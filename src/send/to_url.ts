/**
 * The URL a send goes to, from a `--to` given on the command line (replay, export's curl); the
 * check is src/text/values.ts's, the CLI's `url` kind.
 * @module
 */
import { UsageError } from "../errors.ts";
import type { CapturedEvent } from "../event/record.ts";
import { httpUrlProblem } from "../text/values.ts";

/**
 * The URL a send goes to: `to`, with the event's query string when `to` has none.
 * @throws {UsageError} when `to` is not an http(s) URL (suggesting `http://` when it lacks a scheme).
 */
export function replayUrl(event: Pick<CapturedEvent, "query">, to: string): URL {
  const problem = httpUrlProblem(to, "--to");
  if (problem !== undefined) throw new UsageError(problem);
  const url = new URL(to);
  if (url.search === "" && !to.includes("?") && event.query !== "") url.search = `?${event.query}`;
  return url;
}
