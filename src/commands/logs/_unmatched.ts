/**
 * `hooktap logs --unmatched`, loaded only when asked: the newest requests
 * that matched no endpoint, then hints about them.
 * @module
 */
import { starterConfig } from "../../config/load.ts";
import type { options } from "./command.ts";
import type { Input } from "../../cli/spec.ts";
import { judgeUnmatched } from "../../doctor/unmatched.ts";
import { unmatchedHints } from "../../route/hints.ts";
import type { EventFilter } from "../../query/filter.ts";
import { UsageError } from "../../errors.ts";
import { readUnmatched } from "../../store/read/unmatched.ts";
import { hintLines, unmatchedLines } from "../../term/unmatched_view.ts";
import { type CommandContext, optionalConfig, storeOf } from "../_shared/context.ts";

/** `hooktap logs --unmatched`: the newest requests that matched nothing, then hints about them. */
export async function showUnmatched(
  ctx: CommandContext,
  opts: Input<typeof options>["options"],
  filter: EventFilter,
  limit: number,
): Promise<void> {
  const out = ctx.output;
  _checkApplies(opts);
  const since = filter.since === undefined ? {} : { since: filter.since };
  const until = filter.until?.getTime();
  const path = filter.path;
  const prefix = path?.endsWith("*") ? path.slice(0, -1) : undefined;
  const all = (await readUnmatched(storeOf(ctx), since))
    .filter((e) => filter.method === undefined || e.method === filter.method.toUpperCase())
    .filter((e) => until === undefined || Date.parse(e.time) < until)
    .filter((e) =>
      path === undefined || (prefix === undefined ? e.path === path : e.path.startsWith(prefix))
    );
  if (opts.count) {
    out.out(`${all.length}\n`);
    return;
  }
  const shown = all.slice(-limit);
  if (opts.json) {
    out.out(shown.map((e) => JSON.stringify(e) + "\n").join(""));
    return;
  }
  if (all.length === 0) {
    out.err(
      Object.keys(filter).length > 0
        ? "No unmatched requests match these filters.\n"
        : "No unmatched requests: every request that reached hooktap dev matched an endpoint.\n",
    );
    return;
  }
  out.out(unmatchedLines(shown, out.colors, out.columns()).map((l) => l + "\n").join(""));
  const config = await optionalConfig(ctx, opts.config).catch(() => null);
  const endpoints = config?.endpoints ?? starterConfig().endpoints;
  // Hints about what the endpoints refuse now: a request refused under an earlier config they accept is no
  // sender's mistake.
  const { refused } = judgeUnmatched(all, endpoints);
  out.err(hintLines(unmatchedHints(refused, endpoints), out.errColors).map((l) => l + "\n").join(""));
}

/** The options that select stored events: an unmatched request has no endpoint, body, headers or verdict. */
const EVENT_ONLY = [
  ["endpoint", "--endpoint"],
  ["grep", "--grep"],
  ["where", "--where"],
  ["hasHeader", "--has-header"],
  ["provider", "--provider"],
  ["type", "--type"],
  ["verdict", "--verdict"],
  ["follow", "--follow"],
] as const;

/**
 * Refuses the options `--unmatched` cannot honour (it filters by --since, --until, --filter-method and
 * --path, and counts with --count).
 * @throws {UsageError} naming the option.
 */
function _checkApplies(opts: Input<typeof options>["options"]): void {
  for (const [key, flag] of EVENT_ONLY) {
    const value = opts[key];
    if (value === undefined || value === false || (Array.isArray(value) && value.length === 0)) continue;
    throw new UsageError(
      `${flag} does not apply to --unmatched: ${
        key === "follow"
          ? "it lists the requests that matched no endpoint so far (run it again for new ones)"
          : "a request that matched no endpoint is kept without endpoint, body, headers or verdict"
      }. Leave ${flag} out (--unmatched filters by --since, --until, --filter-method and --path).`,
    );
  }
}
