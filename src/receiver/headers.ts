/**
 * A request's headers as received: `[name, value]` pairs in arrival order,
 * repeats kept, names in the case the sender wrote them.
 *
 * The web `Headers` object sorts names and joins repeats with ", ", which
 * loses what a signature or a debugging user may need. Deno keeps the raw
 * list on the request's inner object; this module reads it when present and
 * falls back to the `Headers` iteration otherwise (requests built in tests).
 * @module
 */
import type { IncomingRequest } from "./request.ts";

let targetSymbol: symbol | null | undefined;

function rawList(headers: Headers): unknown {
  if (targetSymbol === undefined) {
    targetSymbol = Object.getOwnPropertySymbols(headers).find((s) => s.description === "header target") ??
      null;
  }
  if (targetSymbol === null) return undefined;
  const target = (headers as unknown as Record<symbol, unknown>)[targetSymbol] as
    | { headerList?: unknown }
    | null
    | undefined;
  return target?.headerList;
}

/**
 * The headers of `request` in arrival order with repeats. The runtime's own
 * list of this request is returned, not a copy (it is per request, and a
 * copy costs every request): read it, never change it.
 */
export function requestHeaders(request: IncomingRequest): [string, string][] {
  if (request.rawHeaders !== undefined) return request.rawHeaders;
  const list = rawList(request.headers);
  if (Array.isArray(list) && list.length > 0 && Array.isArray(list[0])) return list as [string, string][];
  return [...request.headers];
}

/**
 * Lower-case names of the headers the HTTP stack may have changed, or
 * `undefined` when the list is exactly as sent. Deno.serve's raw list joins
 * every `Cookie` line into one lower-case `cookie` entry at its end (HTTP/2's
 * cookie rule, applied to HTTP/1.1 too): a list from Deno.serve that holds a
 * `cookie` entry cannot be known to be as sent, so the record says so
 * (record v2 `merged`) instead of passing it off as exact. The node:http
 * stack keeps raw headers (`rawHeaders`): nothing to flag there.
 */
export function mergedHeaders(
  request: IncomingRequest,
  headers: readonly [string, string][],
): string[] | undefined {
  if (request.rawHeaders !== undefined) return undefined;
  for (const [name] of headers) if (name === "cookie") return ["cookie"];
  return undefined;
}
