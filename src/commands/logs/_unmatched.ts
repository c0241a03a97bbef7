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
  const since = filter.since === undefined ? {} : { since: filter.since };
  const all = (await readUnmatched(storeOf(ctx), since))
    .filter((e) => filter.method === undefined || e.method === filter.method.toUpperCase());
  const shown = all.slice(-limit);
  if (opts.json) {
    out.out(shown.map((e) => JSON.stringify(e) + "\n").join(""));
    return;
  }
  if (all.length === 0) {
    out.err("No unmatched requests: every request that reached hooktap dev matched an endpoint.\n");
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
