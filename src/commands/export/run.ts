/**
 * `hooktap export`: stored events as HAR, curl commands, JSON Lines or raw
 * body bytes, to stdout or a file. Events come in arrival order: by id, or
 * every event the filters match (streamed, so an export of any size holds
 * one event at a time), or the newest `--limit` of them.
 * @module
 */
import type { options } from "./command.ts";
import type { Input } from "../../cli/spec.ts";
import { VERSION } from "../../version.ts";
import { describeError, HooktapError, StoreError, UsageError } from "../../errors.ts";
import type { CapturedEvent } from "../../event/record.ts";
import { formatNamed, FORMATS } from "../../export/registry.ts";
import { compileFilter } from "../../query/filter.ts";
import type { StoreReader } from "../../store/read/reader.ts";
import { scanBackward, scanForward } from "../../store/read/scan.ts";
import { plural } from "../../text/format.ts";
import { terminalRisk, unsafeForTerminal } from "../../text/sanitize.ts";
import { filterFrom, hasFilter } from "../_shared/filters.ts";
import { checkEndpointName } from "../_shared/hints.ts";
import { type CommandContext, openStore, storeOf, warnSkipped } from "../_shared/context.ts";
import { openUserFile, refuseInsideStore, type UserFile } from "../../store/write/user_file.ts";
import { resolvePath } from "../../text/path.ts";
import { resolveEventLine } from "../../store/read/resolve.ts";
import { readDeliveriesOf } from "../../send/deliveries_read.ts";
import type { DeliveryRecord } from "../../event/delivery.ts";

type Item = { event: CapturedEvent; line: string };

async function* _select(
  ctx: CommandContext,
  reader: StoreReader,
  ids: readonly string[],
  opts: Input<typeof options>["options"],
  excluded: string[],
): AsyncGenerator<Item> {
  const filter = compileFilter(await filterFrom(opts));
  if (ids.length > 0) {
    for (const id of ids) {
      const item = await resolveEventLine(reader, id);
      if (filter.event(item.event)) yield item;
      else excluded.push(item.event.id); // named, not dropped in silence
    }
    return;
  }
  if (opts.limit !== undefined) {
    const newest: Item[] = [];
    const max = opts.limit;
    if (max === 0) return;
    for await (const m of scanBackward(reader, filter, { signal: ctx.signal })) {
      newest.push(m);
      if (newest.length >= max) break;
    }
    yield* newest.reverse();
    return;
  }
  yield* scanForward(reader, filter, { signal: ctx.signal });
}

/** Where the export goes: a file, or stdout in batches. */
interface Sink {
  write(piece: string | Uint8Array): Promise<void>;
  close(): Promise<void>;
}

const encoder = new TextEncoder();

async function _fileSink(ctx: CommandContext, path: string): Promise<Sink & { abort(): Promise<void> }> {
  let out: UserFile;
  try {
    out = await openUserFile(ctx.cwd, path, storeOf(ctx).dir, "--output");
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const denied = error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied;
    // Deno's own words ("run again with the --allow-write flag") fit no installed `hooktap`: say what does.
    throw new StoreError(
      denied
        ? `Cannot write ${path}: hooktap's permissions let it write only in .hooktap/ (and hooktap.config.ts), ` +
          `not there. Write to stdout instead: leave out -o and add > ${path} (or, with \`deno run\`, ` +
          `add --allow-write=${path}).`
        : `Cannot write ${path}: ${describeError(error)}.`,
      { cause: error },
    );
  }
  const writer = out.file.writable.getWriter();
  let batch: string[] = [];
  let size = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    await writer.write(encoder.encode(batch.join("")));
    batch = [];
    size = 0;
  };
  return {
    async write(piece) {
      if (typeof piece !== "string") {
        await flush();
        await writer.write(piece);
        return;
      }
      batch.push(piece);
      size += piece.length;
      if (size > 1 << 20) await flush();
    },
    async close() {
      await flush();
      await writer.close();
      await out.commit(); // the whole export replaces the file at once, owner-only
    },
    async abort() {
      await writer.abort().catch(() => {});
      await out.abort();
    },
  };
}

function _stdoutSink(ctx: CommandContext, raw: boolean): Sink {
  const out = ctx.output;
  const guard = (bytes: Uint8Array | string) => {
    if (!out.stdoutIsTerminal) return;
    const risk = typeof bytes === "string"
      ? (raw ? terminalRisk(encoder.encode(bytes)) : unsafeForTerminal(bytes))
      : terminalRisk(bytes);
    if (risk === undefined) return;
    throw new HooktapError(
      `Not writing this export to the terminal: ${
        raw ? risk : `it holds ${risk}, which would act on your terminal`
      }. Save it with --output FILE (or > FILE), or pipe it: | xxd.`,
    );
  };
  let batch: string[] = [];
  let size = 0;
  const flush = () => {
    if (batch.length > 0) out.out(batch.join(""));
    batch = [];
    size = 0;
  };
  return {
    write(piece) {
      guard(piece);
      if (typeof piece !== "string") {
        flush();
        out.outBytes(piece);
      } else {
        batch.push(piece);
        size += piece.length;
        if (size > 1 << 20) flush();
      }
      return Promise.resolve();
    },
    close() {
      flush();
      return Promise.resolve();
    },
  };
}

/** `hooktap export`. */
export async function run(ctx: CommandContext, input: Input<typeof options>): Promise<void> {
  const opts = input.options;
  const format = formatNamed(opts.format)!; // the parser checked the name against src/names.ts
  await filterFrom(opts); // usage errors before anything is read
  // One body: the event named, or the newest the filters match (`-n 1`).
  if (format.raw && !(input.args.length === 1 || (input.args.length === 0 && opts.limit === 1))) {
    throw new UsageError(
      "--format raw writes one event's body: give exactly one event id, or -n 1 for the newest (or use " +
        "--format jsonl for several).",
    );
  }
  if (opts.to !== undefined && !format.sendsTo) {
    // Not silently ignored: the other formats write what arrived (its URL included), never a new target.
    const which = FORMATS.filter((f) => f.sendsTo).map((f) => `--format ${f.name}`).join(" or ");
    throw new UsageError(
      `--to sets the URL the commands send to, which only ${which} writes; --format ${format.name} writes ` +
        `the events as they arrived. Drop --to, or use ${which}.`,
    );
  }
  if (input.args.length > 0 && opts.limit !== undefined) {
    throw new UsageError("Give event ids or --limit, not both.");
  }
  if (opts.output !== undefined) {
    await refuseInsideStore(resolvePath(ctx.cwd, opts.output), storeOf(ctx).dir, "--output");
  }
  const reader = await openStore(ctx);
  if (reader === null) {
    if (input.args.length > 0) await resolveEventLine(null, input.args[0]!); // not found
    ctx.output.err("No events stored yet: nothing to export.\n");
    return;
  }
  if (opts.endpoint !== undefined) {
    // A name that is neither configured nor stored is a typo: say so before writing an empty export.
    try {
      await checkEndpointName(ctx, opts.endpoint, reader, undefined);
    } catch (error) {
      reader[Symbol.dispose]();
      throw error;
    }
  }
  if (format.raw && input.args.length === 1 && hasFilter(await filterFrom(opts))) {
    // One body asked for by id: one the filters leave out is refused before a file is touched.
    const item = await resolveEventLine(reader, input.args[0]!).catch((error) => {
      reader[Symbol.dispose]();
      throw error;
    });
    if (!compileFilter(await filterFrom(opts)).event(item.event)) {
      reader[Symbol.dispose]();
      throw new UsageError(
        `${item.event.id} does not match the filters given: nothing written. Drop the filters to write its body.`,
      );
    }
  }
  const writer = format.create({ version: VERSION, ...(opts.to !== undefined ? { to: opts.to } : {}) });
  let sink: Sink & { abort?(): Promise<void> };
  try {
    sink = opts.output === undefined
      ? _stdoutSink(ctx, format.raw === true)
      : await _fileSink(ctx, opts.output);
  } catch (error) {
    reader[Symbol.dispose]();
    throw error;
  }
  let count = 0;
  let ok = false;
  const excluded: string[] = [];
  try {
    if (writer.head) await sink.write(writer.head());
    const selected: AsyncIterable<Item & { relayed?: DeliveryRecord | undefined }> = _select(
      ctx,
      reader,
      input.args,
      opts,
      excluded,
    );
    for await (const { event, line, relayed } of format.answers ? _withRelayed(ctx, selected) : selected) {
      await sink.write(writer.event(event, line, relayed));
      count++;
    }
    if (writer.tail) await sink.write(writer.tail());
    ok = true;
  } finally {
    if (ok || sink.abort === undefined) await sink.close();
    else await sink.abort();
    reader[Symbol.dispose]();
  }
  warnSkipped(ctx, reader);
  if (excluded.length > 0) {
    ctx.output.err(
      `Left out ${plural(excluded.length, "event")} the filters exclude: ${excluded.join(", ")}.\n`,
    );
  }
  if (opts.output !== undefined || count === 0) {
    const where = opts.output === undefined ? "" : ` to ${opts.output}`;
    ctx.output.err(
      count === 0 && hasFilter(await filterFrom(opts))
        ? `No stored events match these filters${
          opts.output === undefined ? "" : `: wrote an empty ${format.name} export to ${opts.output}`
        }.\n`
        : `Exported ${plural(count, "event")} as ${format.name}${where}.\n`,
    );
  }
}

/** Events read ahead to find their relay attempts in one read of the deliveries log. */
const RELAYED_BATCH = 256;
/** The most of their stored lines held at once while they wait for that read (UTF-16 code units). */
const RELAYED_BATCH_CHARS = 8 * 1024 * 1024;

/**
 * Each item with, for a relayed event, its relay attempt: its sender got that answer (the app's, or a 502
 * saying why there was none). Read for a batch of events at once: one read per event went back through the
 * log from its end every time (4,000 relayed events took 18 s to export, against 0.1 s without the answers).
 */
async function* _withRelayed(
  ctx: CommandContext,
  items: AsyncIterable<Item>,
): AsyncGenerator<Item & { relayed?: DeliveryRecord | undefined }> {
  let batch: Item[] = [];
  let chars = 0;
  const flush = async function* () {
    // Marked relay (its first target), or one of several targets (a relay target may be a later one).
    const relayed = batch.filter(({ event: { forward: mark } }) =>
      mark !== undefined && (mark.mode === "relay" || mark.targets !== undefined)
    ).map((item) => item.event);
    const records = await readDeliveriesOf(storeOf(ctx).deliveries, relayed);
    const items = batch;
    batch = [];
    chars = 0;
    for (const item of items) {
      yield { ...item, relayed: records.get(item.event.id)?.find((r) => r.source === "relay") };
    }
  };
  for await (const item of items) {
    batch.push(item);
    chars += item.line.length;
    if (batch.length >= RELAYED_BATCH || chars >= RELAYED_BATCH_CHARS) yield* flush();
  }
  if (batch.length > 0) yield* flush();
}
