/**
 * Checking a `--to` URL given on the command line (replay, export's curl).
 * @module
 */
import { UsageError } from "../errors.ts";
import type { CapturedEvent } from "../event/record.ts";

/**
 * The URL a send goes to: `to`, with the event's query string when `to` has none.
 * @throws {UsageError} when `to` is not an http(s) URL (suggesting `http://` when it lacks a scheme).
 */
export function replayUrl(event: Pick<CapturedEvent, "query">, to: string): URL {
  const bare = /^(localhost|\d{1,3}(\.\d{1,3}){3}|\[[0-9a-f:]+\]|[a-z0-9-]+(\.[a-z0-9-]+)+)(:\d+)?(\/|$)/i;
  if (bare.test(to)) {
    throw new UsageError(`--to needs a scheme: did you mean http://${to} ? (got "${to}")`);
  }
  let url: URL;
  try {
    url = new URL(to);
  } catch {
    throw new UsageError(`--to must be a full URL like http://localhost:3000/webhook, got "${to}".`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UsageError(`--to must be an http:// or https:// URL, got "${to}".`);
  }
  if (url.search === "" && !to.includes("?") && event.query !== "") url.search = `?${event.query}`;
  return url;
}
