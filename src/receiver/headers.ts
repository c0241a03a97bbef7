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

let requestSymbol: symbol | undefined;

/**
 * The runtime's inner request behind a `Request` from Deno.serve (the one
 * that asks the HTTP layer for headers and body), or `undefined` for any
 * other object. A runtime internal: found by its symbol's description, and
 * recognised by its `header` method (requests built with `new Request` have
 * an inner object without it).
 */
export function innerRequest(request: object): Record<string, unknown> | undefined {
  // Only a symbol found is kept: an object of another kind (a hub event, a test's stand-in) passed first
  // must not turn the lookup off for the requests that come after it.
  const symbol = requestSymbol ??
    Object.getOwnPropertySymbols(request).find((s) => s.description === "request");
  if (symbol === undefined) return undefined;
  const inner = (request as Record<symbol, unknown>)[symbol];
  if (typeof inner !== "object" || inner === null) return undefined;
  requestSymbol = symbol;
  return typeof (inner as { header?: unknown }).header === "function"
    ? inner as Record<string, unknown>
    : undefined;
}

/**
 * The headers of `request` in arrival order with repeats. The runtime's own
 * list of this request is returned, not a copy (it is per request, and a
 * copy costs every request): read it, never change it.
 *
 * On Deno.serve the list is asked of the inner request, without making the
 * `Request`'s `Headers`: once a handler has touched `request.headers`, the
 * runtime asks the HTTP layer for the whole list a second time when the
 * answer goes out (to keep the closed request's headers readable), about a
 * microsecond and a second copy of every header per request.
 */
export function requestHeaders(request: IncomingRequest): [string, string][] {
  if (request.rawHeaders !== undefined) return request.rawHeaders;
  const inner = innerRequest(request);
  if (inner !== undefined) {
    try {
      const own = inner.headerList;
      if (Array.isArray(own) && (own.length === 0 || Array.isArray(own[0]))) return own as [string, string][];
    } catch { /* the request is closed: read through its Headers below */ }
  }
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
  for (let i = 0; i < headers.length; i++) if (headers[i]![0] === "cookie") return ["cookie"];
  return undefined;
}
