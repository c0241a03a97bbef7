/**
 * Routing: which configured endpoint a request's method and path select.
 * Pure: no I/O.
 * @module
 */
import type { Endpoint } from "../config/types.ts";

/** The outcome of matching one request. */
export type Match =
  | { kind: "matched"; endpoint: Endpoint }
  | { kind: "no-endpoint" }
  | { kind: "method-not-allowed"; allow: string[] };

/** A matcher over a fixed list of endpoints. */
export type Matcher = (method: string, path: string) => Match;

/**
 * Builds a matcher. Paths match exactly (after dot segments are resolved);
 * `/` does not match `/webhook`, and `/webhook/` does not either.
 */
export function createMatcher(endpoints: readonly Endpoint[]): Matcher {
  const byPath = new Map<string, Map<string, Endpoint>>();
  for (const endpoint of endpoints) {
    const methods = byPath.get(endpoint.path) ?? new Map<string, Endpoint>();
    for (const method of endpoint.methods) methods.set(method, endpoint);
    byPath.set(endpoint.path, methods);
  }
  return (method, path) => {
    const methods = byPath.get(path);
    if (methods === undefined) return { kind: "no-endpoint" };
    const endpoint = methods.get(method);
    if (endpoint === undefined) return { kind: "method-not-allowed", allow: [...methods.keys()] };
    return { kind: "matched", endpoint };
  };
}
