/**
 * The unmatched log judged against the endpoints checked now: a request logged as 404 or 405 under an
 * earlier config (another `dev --config`, a config since edited) may be one the current endpoints accept,
 * or refuse for another reason (a 405 whose allowed methods changed). Pure.
 * @module
 */
import type { Endpoint } from "../config/types.ts";
import { createMatcher } from "../route/router.ts";
import type { UnmatchedEntry } from "../store/write/unmatched.ts";

/** {@linkcode judgeUnmatched}'s answer. */
export interface JudgedUnmatched {
  /** The entries the endpoints still refuse, each with the status and allowed methods they would get now. */
  refused: UnmatchedEntry[];
  /** The entries the endpoints would accept now (logged under an earlier config). */
  accepted: UnmatchedEntry[];
}

/**
 * Routes each logged request again through `endpoints`.
 *
 * @example
 * ```ts
 * import { judgeUnmatched } from "./unmatched.ts";
 * const { refused, accepted } = judgeUnmatched(
 *   [{ time: "2026-01-01T00:00:00.000Z", method: "POST", path: "/sw", query: "", status: 405, allow: ["P0ST"] }],
 *   [{ name: "sw", path: "/sw", methods: ["POST"], maxBodySize: 1 }],
 * );
 * refused.length; // 0
 * accepted.length; // 1
 * ```
 */
export function judgeUnmatched(
  entries: readonly UnmatchedEntry[],
  endpoints: readonly Endpoint[],
): JudgedUnmatched {
  const match = createMatcher(endpoints);
  const refused: UnmatchedEntry[] = [];
  const accepted: UnmatchedEntry[] = [];
  for (const e of entries) {
    const m = match(e.method, e.path);
    if (m.kind === "matched") accepted.push(e);
    else if (m.kind === "no-endpoint") {
      const { allow: _, ...rest } = e;
      refused.push({ ...rest, status: 404 });
    } else refused.push({ ...e, status: 405, allow: m.allow });
  }
  return { refused, accepted };
}
