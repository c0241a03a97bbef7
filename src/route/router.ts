/**
 * Routing: which configured endpoint a request's method and path select.
 * A path is exact (`/webhook`) or a URL pattern (`/hooks/:provider`,
 * `/github/*`, through the web-standard `URLPattern`). Exact paths are
 * tried first, then patterns in config order; the first whose methods
 * include the request's wins. `update()` swaps the whole table at once, so
 * a config reload never leaves a request half-routed. Pure: no I/O.
 * @module
 */
import type { Endpoint } from "../config/types.ts";
import { isPattern, matchForm, paramValue } from "../text/url_path.ts";

/** The outcome of matching one request. */
export type Match =
  | { kind: "matched"; endpoint: Endpoint; params?: Record<string, string> }
  | { kind: "no-endpoint" }
  | { kind: "method-not-allowed"; allow: string[] };

/** A matcher over a fixed list of endpoints. */
export type Matcher = (method: string, path: string) => Match;

/** A router whose endpoints can be replaced while it serves. */
export interface Router {
  /** Matches a request's method and URL pathname (as `new URL(url).pathname` gives it). */
  match: Matcher;
  /** Replaces the endpoints; requests matched from now on see only the new ones. */
  update(endpoints: readonly Endpoint[]): void;
  /** The endpoints served now. */
  readonly endpoints: readonly Endpoint[];
}

export { isPattern };

interface Table {
  endpoints: readonly Endpoint[];
  exact: Map<string, Endpoint[]>;
  /** `prefix`: the pattern's literal start; a path without it is not tried (URLPattern.exec costs ~5 µs). */
  patterns: { pattern: URLPattern; prefix: string; endpoint: Endpoint }[];
}

/** The literal text of a pattern before its first token (`/hooks/` of `/hooks/:provider`). */
export function literalPrefix(path: string): string {
  const cut = path.search(/:[\p{ID_Start}_$]|[*({\\]/u);
  return matchForm(new URL(cut < 0 ? path : path.slice(0, cut), "http://localhost").pathname);
}

function buildTable(endpoints: readonly Endpoint[]): Table {
  const exact = new Map<string, Endpoint[]>();
  const patterns: Table["patterns"] = [];
  for (const endpoint of endpoints) {
    if (isPattern(endpoint.path)) {
      const pattern = new URLPattern({ pathname: endpoint.path });
      patterns.push({ pattern, prefix: literalPrefix(endpoint.path), endpoint });
    } else {
      const key = matchForm(new URL(endpoint.path, "http://localhost").pathname);
      exact.set(key, [...(exact.get(key) ?? []), endpoint]);
    }
  }
  return { endpoints, exact, patterns };
}

function paramsOf(groups: Record<string, string | undefined>): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [k, v] of Object.entries(groups)) if (v !== undefined) params[k] = paramValue(v);
  return params;
}

/**
 * Builds a router.
 *
 * @example
 * ```ts
 * import { createRouter } from "./router.ts";
 * const router = createRouter([
 *   { name: "gh", path: "/hooks/github", methods: ["POST"], maxBodySize: 1024 },
 *   { name: "any", path: "/hooks/:provider", methods: ["POST"], maxBodySize: 1024 },
 * ]);
 * router.match("POST", "/hooks/stripe"); // { kind: "matched", endpoint: any, params: { provider: "stripe" } }
 * ```
 */
export function createRouter(endpoints: readonly Endpoint[]): Router {
  let table = buildTable(endpoints);
  return {
    get endpoints() {
      return table.endpoints;
    },
    update(next) {
      table = buildTable(next); // built first, swapped in one assignment
    },
    match(method, path) {
      const t = table;
      const form = matchForm(path);
      const allow: string[] = [];
      for (const endpoint of t.exact.get(form) ?? []) {
        if (endpoint.methods.includes(method)) return { kind: "matched", endpoint };
        allow.push(...endpoint.methods);
      }
      for (const { pattern, prefix, endpoint } of t.patterns) {
        if (!form.startsWith(prefix)) continue;
        const found = pattern.exec({ pathname: form });
        if (found === null) continue;
        if (endpoint.methods.includes(method)) {
          return { kind: "matched", endpoint, params: paramsOf(found.pathname.groups) };
        }
        allow.push(...endpoint.methods);
      }
      if (allow.length === 0) return { kind: "no-endpoint" };
      return { kind: "method-not-allowed", allow: [...new Set(allow)] };
    },
  };
}

/** A matcher over a fixed list of endpoints (a router that is never updated). */
export function createMatcher(endpoints: readonly Endpoint[]): Matcher {
  return createRouter(endpoints).match;
}
