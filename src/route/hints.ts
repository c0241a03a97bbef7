/**
 * What unmatched requests say about a sender: the URL lacks the endpoint
 * path (`12 requests to / : your sender's URL lacks /webhook`), uses an
 * old or mistyped path, or the wrong method. Pure: entries and endpoints
 * in, hints out, most frequent first.
 * @module
 */
import type { Endpoint } from "../config/types.ts";
import { closest } from "../text/suggest.ts";
import type { UnmatchedEntry } from "../store/write/unmatched.ts";
import { isPattern } from "./router.ts";

/** One hint about a group of unmatched requests. */
export interface UnmatchedHint {
  /** `missing-path`: the URL stops short of an endpoint's path; `wrong-method`: the path exists with other methods; `unknown-path`: anything else. */
  kind: "missing-path" | "wrong-method" | "unknown-path";
  count: number;
  /** The methods seen. */
  methods: string[];
  path: string;
  /** Time of the newest request of the group. */
  last: string;
  /** The finding, one line: `12 requests to / : your sender's URL lacks /webhook`. */
  text: string;
  /** What to do. */
  fix: string;
}

/** The fixed part of an endpoint's path: all of an exact path, a pattern's text before its first token. */
function literalPath(path: string): string {
  if (!isPattern(path)) return path;
  const cut = path.search(/:[\p{ID_Start}_$]|[*({\\]/u);
  return path.slice(0, cut);
}

/**
 * A path as the user reads it: a pattern's tokens as the parts to fill in (`/hooks/:provider` →
 * `/hooks/<provider>`, `*` → `<anything>`), never a literal `:provider` to paste.
 */
export function shownPath(path: string): string {
  if (!isPattern(path)) return path;
  return path.replace(/:([\p{ID_Start}_$][\p{ID_Continue}$]*)/gu, "<$1>").replace(/\*/g, "<anything>");
}

/** The methods of `methods` that `endpoint` refuses. */
function refusedBy(endpoint: Endpoint, methods: readonly string[]): string[] {
  return methods.filter((m) => !endpoint.methods.includes(m.toUpperCase()));
}

function requests(n: number, methods: string[]): string {
  return `${n} ${methods.join("/")} request${n === 1 ? "" : "s"}`;
}

function classify404(
  path: string,
  endpoints: readonly Endpoint[],
  origin: string,
  methods: readonly string[],
): Pick<UnmatchedHint, "kind" | "text" | "fix"> {
  const base = path.replace(/\/+$/, "");
  const longer = endpoints.filter((e) => {
    const literal = literalPath(e.path);
    return literal.length > base.length && literal.startsWith(base + "/");
  });
  // The one that takes the sender's method first: the hint names the endpoint the sender meant.
  const e = longer.find((e) => refusedBy(e, methods).length === 0) ?? longer[0];
  if (e !== undefined) {
    const shown = shownPath(e.path);
    const lacks = shown.slice(base.length);
    const refused = refusedBy(e, methods);
    const fill = shown === e.path ? "" : ", each <…> filled in";
    return {
      kind: "missing-path",
      text: `your sender's URL lacks ${lacks}` +
        (refused.length === 0
          ? ""
          : `, and ${shown} takes ${e.methods.join(", ")}, not ${refused.join(", ")}`),
      fix: `at the sender, end the URL with ${shown} (${origin}${shown}${fill}, endpoint "${e.name}")` +
        (refused.length === 0 ? "" : ` and send ${e.methods.join(" or ")}`),
    };
  }
  const exact = endpoints.filter((e) => !isPattern(e.path)).map((e) => e.path);
  if (path !== base && exact.includes(base)) {
    return {
      kind: "unknown-path",
      text: `a trailing "/" after ${base}`,
      fix: `at the sender, drop the trailing "/": ${origin}${base}`,
    };
  }
  const near = closest(path, endpoints.map((e) => e.path));
  const paths = endpoints.map((e) => shownPath(e.path)).join(", ");
  return {
    kind: "unknown-path",
    text: near === undefined
      ? `no endpoint has this path (an old URL at the sender?)`
      : `no endpoint has this path: did you mean ${shownPath(near)}?`,
    fix: `at the sender, use ${origin} followed by one of: ${paths}; or add an endpoint with this path`,
  };
}

/**
 * Hints about `entries` given the endpoints configured now.
 *
 * @example
 * ```ts
 * import { unmatchedHints } from "./hints.ts";
 * const [hint] = unmatchedHints(
 *   [{ time: "2026-01-01T00:00:00.000Z", method: "POST", path: "/", query: "", status: 404 }],
 *   [{ name: "default", path: "/webhook", methods: ["POST"], maxBodySize: 1 }],
 * );
 * hint?.text; // "1 POST request to / : your sender's URL lacks /webhook"
 * ```
 */
export function unmatchedHints(
  entries: readonly UnmatchedEntry[],
  endpoints: readonly Endpoint[],
  /** What senders put before the path: a hub's channel URL when dev receives through one. */
  origin = "<tunnel URL>",
): UnmatchedHint[] {
  const groups = new Map<string, UnmatchedEntry[]>();
  for (const e of entries) {
    const key = `${e.status} ${e.path}`;
    groups.set(key, [...(groups.get(key) ?? []), e]);
  }
  const hints: UnmatchedHint[] = [];
  for (const group of groups.values()) {
    const first = group[0]!;
    const methods = [...new Set(group.map((e) => e.method))];
    const last = group.reduce((a, e) => (e.time > a ? e.time : a), first.time);
    const head = `${requests(group.length, methods)} to ${first.path}`;
    if (first.status === 405) {
      const allow = [...new Set(group.flatMap((e) => e.allow ?? []))];
      // The endpoint at this path (not merely one that takes the allowed method: `GET /stripe` is about the
      // endpoint at /stripe even when /github, listed first, also takes POST).
      const owner = endpoints.find((e) => e.path === first.path) ??
        endpoints.find((e) =>
          isPattern(e.path) && new URLPattern({ pathname: e.path }).test({ pathname: first.path })
        );
      hints.push({
        kind: "wrong-method",
        count: group.length,
        methods,
        path: first.path,
        last,
        text: `${head} : wrong method, this path accepts ${allow.join(", ")}`,
        fix: `set the sender to ${allow.join(" or ")}` +
          (owner === undefined
            ? ""
            : `, or add ${methods.join(", ")} to the method of endpoint "${owner.name}"`) +
          (methods.includes("GET") ? " (a GET is often a browser or a URL check, not the webhook)" : ""),
      });
      continue;
    }
    const c = classify404(first.path, endpoints, origin, methods);
    hints.push({ ...c, count: group.length, methods, path: first.path, last, text: `${head} : ${c.text}` });
  }
  return hints.sort((a, b) => b.count - a.count || (a.last < b.last ? 1 : -1));
}
