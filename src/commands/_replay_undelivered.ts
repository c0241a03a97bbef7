/**
 * `hooktap replay --undelivered --to URL`: sends every forwarded event that
 * never got through, one line per send.
 * @module
 */
import { replayUndelivered } from "../send/replay_record.ts";
import { deliveryJson, formatDelivery } from "../ui/delivery_line.ts";
import { plural } from "../ui/format.ts";
import { type CommandContext, storeOf } from "./_shared.ts";

/** Runs it; exit 1 when some send was not answered 2xx. */
export async function runUndelivered(
  ctx: CommandContext,
  to: string,
  options: { timeoutMs: number; insecure: boolean; json: boolean },
): Promise<void> {
  const out = ctx.output;
  const records = await replayUndelivered(storeOf(ctx), to, {
    timeoutMs: options.timeoutMs,
    insecure: options.insecure,
    signal: ctx.signal,
    onDelivery: (r) => out.out(options.json ? deliveryJson(r) : formatDelivery(r, out)),
  });
  if (records.length === 0) {
    out.err("No undelivered events: every forwarded event got a 2xx answer.\n");
    return;
  }
  const failed = records.filter((r) => r.outcome !== "delivered").length;
  out.err(
    failed === 0
      ? `Delivered ${plural(records.length, "event")}.\n`
      : `${
        plural(failed, "event")
      } of ${records.length} still not delivered; run this again once the app answers 2xx.\n`,
  );
  if (failed > 0) ctx.exit(1);
}
