/**
 * Filling a route's parameters into a target URL, for forwarding:
 * `http://localhost:3000/:provider` with `{ provider: "github" }` becomes
 * `http://localhost:3000/github`. Pure.
 * @module
 */

/** Characters that stand bare in a URL path; everything else is percent-encoded. `%` stays (params keep `%2F`, `%25`). */
const UNSAFE = /[^A-Za-z0-9\-._~!$&'()*+,;=:@/%]/gu;

function encodePathValue(value: string): string {
  return value.replace(UNSAFE, (ch) => encodeURIComponent(ch));
}

/**
 * Replaces each `:name` in `template` (after its host) with `params[name]`,
 * percent-encoding what a path cannot hold, and `*` with `params["0"]`.
 * A `:name` with no such parameter is left as it is.
 *
 * @example
 * ```ts
 * import { expandTarget } from "./expand.ts";
 * expandTarget("http://localhost:3000/:provider", { provider: "café" });
 * // "http://localhost:3000/caf%C3%A9"
 * ```
 */
export function expandTarget(template: string, params: Readonly<Record<string, string>> = {}): string {
  // Leave `scheme://host:port` alone: a port is not a parameter.
  const origin = template.match(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i)?.[0] ?? "";
  const rest = template.slice(origin.length);
  let wildcard = 0;
  const filled = rest.replace(/:([A-Za-z_$][A-Za-z0-9_$]*)|\*/g, (token, name?: string) => {
    const key = name ?? String(wildcard++);
    const value = params[key];
    return value === undefined ? token : encodePathValue(value);
  });
  return origin + filled;
}

const parsed = new Map<string, URL>();

/**
 * The URL an event is delivered to: `to` with the route's parameters filled
 * in (`http://localhost:3000/:provider`), and the event's query when `to`
 * has none. Treat it as read-only: without a query to add it is shared.
 */
export function deliveryUrl(
  event: { query: string; params?: Record<string, string> | undefined },
  to: string,
): URL {
  if (event.params !== undefined) to = expandTarget(to, event.params);
  if (event.query === "" || to.includes("?")) {
    let url = parsed.get(to);
    if (url === undefined) {
      if (parsed.size > 64) parsed.clear();
      parsed.set(to, url = new URL(to));
    }
    return url;
  }
  const url = new URL(to);
  if (url.search === "" && !to.includes("?") && event.query !== "") url.search = `?${event.query}`;
  return url;
}
