/**
 * `hooktap prune`: keep the newest N events, or drop those older than an age.
 * @module
 */
import type { options } from "./command.ts";
import type { Input } from "../../cli/spec.ts";
import { UsageError } from "../../errors.ts";
import type { CompactPlan } from "../../store/write/compact.ts";
import { compactAndReport } from "../_shared/compact.ts";
import type { CommandContext } from "../_shared/context.ts";
import { openStore } from "../_shared/context.ts";
import { suggestCommand } from "../../text/command_line.ts";

/** `hooktap prune`. */
export async function run(ctx: CommandContext, input: Input<typeof options>): Promise<void> {
  const opts = input.options;
  const plan: CompactPlan = {};
  if (opts.keep !== undefined) plan.keep = opts.keep;
  if (opts.olderThan !== undefined) plan.beforeMs = Date.now() - opts.olderThan;
  if (plan.keep === undefined && plan.beforeMs === undefined) {
    throw new UsageError(
      `Say what to keep: ${suggestCommand(["prune", "--keep", "100000"])}, or --older-than 7d.`,
    );
  }
  const reader = await openStore(ctx);
  if (reader === null) {
    ctx.output.err("No events stored yet: nothing to prune.\n");
    return;
  }
  reader[Symbol.dispose]();
  await compactAndReport(ctx, plan, opts.json ?? false);
}
