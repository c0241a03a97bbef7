/**
 * `hooktap rm`: remove events by id, or all of them.
 * @module
 */
import type { options } from "./command.ts";
import type { Input } from "../../cli/spec.ts";
import { HooktapError, UsageError } from "../../errors.ts";
import { askYesNo, canAsk } from "../../term/confirm.ts";
import { plural } from "../../text/format.ts";
import { compactAndReport } from "../_shared/compact.ts";
import { type CommandContext, openStore } from "../_shared/context.ts";
import { resolveEvent } from "../../store/read/resolve.ts";
import { suggestCommand } from "../../text/command_line.ts";

/** `hooktap rm`. */
export async function run(ctx: CommandContext, input: Input<typeof options>): Promise<void> {
  const opts = input.options;
  if (opts.all && input.args.length > 0) throw new UsageError("Give event ids or --all, not both.");
  if (!opts.all && input.args.length === 0) {
    throw new UsageError(
      `Say which events to remove: ${suggestCommand(["rm"])} ID..., or ${suggestCommand(["rm", "--all"])}.`,
    );
  }
  if (!opts.yes && !canAsk()) {
    throw new UsageError("hooktap rm removes events for good: add --yes to confirm (no terminal to ask on).");
  }
  const reader = await openStore(ctx);
  const ids: string[] = [];
  try {
    for (const text of input.args) ids.push((await resolveEvent(reader, text)).id);
  } finally {
    reader?.[Symbol.dispose]();
  }
  if (reader === null) {
    ctx.output.err("No events stored yet: nothing to remove.\n");
    return;
  }
  const what = opts.all ? "every stored event" : plural(new Set(ids).size, "event");
  if (!opts.yes && !(await askYesNo(`Remove ${what} from .hooktap/events.jsonl for good?`))) {
    ctx.output.err("Nothing removed.\n");
    throw new HooktapError("Cancelled.", { exitCode: 1, reported: true });
  }
  await compactAndReport(ctx, opts.all ? { all: true } : { ids: [...new Set(ids)] }, opts.json ?? false);
}
