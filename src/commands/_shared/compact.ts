/**
 * What `prune` and `rm` share: running the compaction and printing its result.
 * @module
 */
import type { CompactPlan } from "../../store/write/compact.ts";
import { compactStore } from "../../store/write/prune.ts";
import { formatBytes, plural } from "../../text/format.ts";
import { type CommandContext, storeOf } from "./context.ts";

/** Compacts the store with `plan` and prints what happened. */
export async function compactAndReport(ctx: CommandContext, plan: CompactPlan, json: boolean): Promise<void> {
  const { result, by } = await compactStore(storeOf(ctx), plan, { signal: ctx.signal });
  const out = ctx.output;
  // What `rm ID...` removed, by id: those asked for that were still there.
  const removed = plan.ids?.filter((id) => !result.missing.includes(id));
  if (json) {
    out.out(JSON.stringify({ ...result, ...(removed === undefined ? {} : { removed }), by }) + "\n");
    return;
  }
  const freed = result.bytesBefore - result.bytesAfter;
  if (result.unchanged) {
    out.out(`Nothing to remove: the log is unchanged (${formatBytes(result.bytesAfter)}).\n`);
  } else {
    const what = plan.all
      ? "Removed every event: "
      : removed !== undefined && removed.length > 0
      ? `Removed ${removed.join(", ")}; `
      : "";
    out.out(
      `${what}${plural(result.kept, "event")} kept (${formatBytes(result.bytesAfter)}), ${
        formatBytes(freed)
      } freed` +
        `${by === "hooktap dev" ? " (done by the running hooktap dev)" : ""}.\n`,
    );
  }
  for (const id of result.missing) {
    out.err(out.errColors.yellow(`warning: ${id} was already gone.\n`));
  }
}
