/**
 * `hooktap replay` without an id: every event the filters match, in
 * arrival order, through the single-event replay (src/send/bulk.ts).
 * @module
 */
import type { options } from "../cli/commands/replay.ts";
import type { Input } from "../cli/spec.ts";
import { HooktapError, UsageError } from "../errors.ts";
import { openReplayRecorder } from "../send/replay_record.ts";
import { replayUrl } from "../send/replay.ts";
import { replayMany } from "../send/bulk.ts";
import { compileFilter } from "../store/read/filter.ts";
import { countMatches, scanForward } from "../store/read/scan.ts";
import { progressBar } from "../ui/progress.ts";
import { safeLine } from "../ui/sanitize.ts";
import { filterFrom, hasFilter } from "./_filters.ts";
import { type CommandContext, openStore, storeOf, warnSkipped } from "./_shared.ts";

/** Reads `--rate`: `10`, `10/s`, `0.5/s`. */
export function parseRate(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(?:\/\s*s)?\s*$/.exec(text);
  const n = m === null ? NaN : Number(m[1]);
  if (!(n > 0)) {
    throw new UsageError(`--rate must be a number of events per second like 10 or 2.5/s, got "${text}".`);
  }
  return n;
}

/** Bulk replay. */
export async function replayBulk(
  ctx: CommandContext,
  opts: Input<typeof options>["options"],
  single: { headers: [string, string][]; timeoutMs: number },
): Promise<void> {
  const filter = filterFrom(opts);
  if (!hasFilter(filter)) {
    throw new UsageError(
      "Give an event id, or filters to replay many (--endpoint, --since, --until, --grep, --where), " +
        "or --undelivered: hooktap replay --endpoint github --since 2h --to URL. Run `hooktap logs` to see ids.",
    );
  }
  const rate = opts.rate === undefined ? undefined : parseRate(opts.rate);
  if (opts.method !== undefined) single = { ...single, ...{ method: opts.method } };
  const out = ctx.output;
  const c = out.errColors;
  const reader = await openStore(ctx);
  if (reader === null) {
    out.err("No events stored yet: nothing to replay.\n");
    return;
  }
  try {
    const compiled = compileFilter(filter);
    const total = await countMatches(reader, compiled);
    if (total === 0) {
      out.err("No stored events match these filters.\n");
      return;
    }
    if (!opts.json) out.err(c.dim(`Replaying ${total} events to ${safeLine(opts.to)} in arrival order...\n`));
    const bar = progressBar(total, "replay");
    const events = (async function* () {
      for await (const m of scanForward(reader, compiled)) yield m.event;
    })();
    let ok = 0;
    let failed = 0;
    // Each send is recorded in .hooktap/deliveries.jsonl ("source": "replay"), in order, as single replays are.
    let recording = Promise.resolve();
    let unrecorded = 0;
    const recorder = await openReplayRecorder(storeOf(ctx));
    let summary;
    try {
      summary = await replayMany(events, opts.to, {
        ...single,
        ...(rate !== undefined ? { rate } : {}),
        signal: ctx.signal,
        onResult: (event, outcome) => {
          const durationMs = "error" in outcome ? 0 : outcome.durationMs;
          const send = {
            event,
            url: replayUrl(event, opts.to).href,
            method: (opts.method ?? event.method).toUpperCase(),
            startedAt: new Date(Date.now() - durationMs),
            durationMs,
            ...("error" in outcome ? { error: outcome.error } : {
              status: outcome.status,
              statusText: outcome.statusText,
              body: outcome.body,
              truncated: outcome.truncated,
            }),
          };
          recording = recording.then(() => recorder.record(send)).catch(() => void unrecorded++);
          if ("ok" in outcome && outcome.ok) ok++;
          else failed++;
          if (opts.json) {
            out.out(JSON.stringify("error" in outcome ? { id: event.id, ...outcome } : outcome) + "\n");
          } else if ("error" in outcome) {
            bar.done();
            out.err(c.red(`${event.id}: ${safeLine(outcome.error)}\n`));
          } else if (!outcome.ok) {
            bar.done();
            out.err(c.yellow(`${event.id}: ${outcome.status} ${safeLine(outcome.statusText)}\n`));
          }
          bar.update(ok + failed, `2xx ${ok}  failed ${failed}`);
        },
      });
    } finally {
      await recording;
      await recorder.close();
    }
    bar.done();
    if (unrecorded > 0) {
      out.err(c.yellow(`warning: ${unrecorded} sends were not recorded in the deliveries log.\n`));
    }
    const line = `${summary.interrupted ? "Stopped (Ctrl-C). " : ""}Sent ${summary.sent} of ${total}: ` +
      `${summary.ok} answered 2xx, ${summary.failed} failed.\n`;
    out.err(summary.failed > 0 ? c.yellow(line) : line);
    if (summary.interrupted) throw new HooktapError("Stopped.", { exitCode: 130, reported: true });
    ctx.exit(summary.failed > 0 ? 1 : 0);
  } finally {
    reader[Symbol.dispose]();
    warnSkipped(ctx, reader);
  }
}
