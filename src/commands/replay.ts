/**
 * `hooktap replay EVENT_ID --to URL`: sends a stored event again, byte for
 * byte, and shows what the target answered.
 * @module
 */
import { describeError, UsageError } from "../errors.ts";
import type { CapturedEvent } from "../event/record.ts";
import { recordReplay, type ReplaySend } from "../send/replay_record.ts";
import { parseDuration } from "../store/read/filter.ts";
import { parseHeaderOption } from "../send/headers.ts";
import { prepareReplay } from "../send/prepare.ts";
import { checkMethod, replay, replayUrl } from "../send/replay.ts";
import { staleSignatureWarning } from "../send/signatures.ts";
import { formatBytes } from "../ui/format.ts";
import { safeBlock, safeLine } from "../ui/sanitize.ts";
import type { options } from "../cli/commands/replay.ts";
import type { Input } from "../cli/spec.ts";
import {
  type CommandContext,
  openStore,
  optionalConfig,
  resolveEvent,
  storeOf,
  warnSkipped,
} from "./_shared.ts";
import { replayBulk } from "./_replay_bulk.ts";

function _collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function _timeout(text: string): number {
  const ms = parseDuration(text);
  if (ms === undefined || ms <= 0) {
    throw new UsageError(
      `--timeout must be a duration like 30s, 500ms or 2m (a bare number is seconds), got "${text}".`,
    );
  }
  return ms;
}

const PREVIEW_CHARS = 1000;

/** Records the send in `.hooktap/deliveries.jsonl`; a failure to record is a warning, not the replay's failure. */
async function _record(ctx: CommandContext, send: ReplaySend): Promise<void> {
  try {
    await recordReplay(storeOf(ctx), send);
  } catch (error) {
    ctx.output.err(`warning: this send was not recorded in the deliveries log: ${describeError(error)}\n`);
  }
}

async function _readBody(ctx: CommandContext, file: string): Promise<Uint8Array> {
  try {
    return await Deno.readFile(file.startsWith("/") ? file : `${ctx.cwd}/${file}`);
  } catch (error) {
    throw new UsageError(
      `--body-file ${file} cannot be read: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** `hooktap replay`. */
export async function run(ctx: CommandContext, input: Input<typeof options>): Promise<void> {
  const opts = input.options;
  const out = ctx.output;
  const overrides = opts.header.map(parseHeaderOption);
  const timeoutMs = _timeout(opts.timeout);
  if (opts.undelivered) {
    if (input.args[0] !== undefined) throw new UsageError("Give an event id or --undelivered, not both.");
    replayUrl({ query: "" }, opts.to);
    const { runUndelivered } = await import("./_replay_undelivered.ts");
    return runUndelivered(ctx, opts.to, {
      timeoutMs,
      insecure: opts.insecure ?? false,
      json: opts.json ?? false,
    });
  }
  const id = input.args[0];
  if (opts.method !== undefined) checkMethod(opts.method);
  replayUrl({ query: "" }, opts.to); // a bad --to is a usage error before anything is read
  if (id === undefined) return await replayBulk(ctx, opts, { headers: overrides, timeoutMs });
  const reader = await openStore(ctx);
  let event: CapturedEvent;
  try {
    event = await resolveEvent(reader, id);
  } finally {
    reader?.[Symbol.dispose]();
    warnSkipped(ctx, reader);
  }
  const url = replayUrl(event, opts.to);
  const method = (opts.method ?? event.method).toUpperCase();
  const warn = (text: string) => out.err(out.errColors.yellow(`warning: ${text}\n`));
  const changing = opts.resign === true || opts.bodyFile !== undefined || opts.set.length > 0;
  const config = changing ? await optionalConfig(ctx, opts.config) : null;
  const settings = config?.endpoints.find((e) => e.name === event.endpoint)?.signing;
  const prepared = await prepareReplay(event, url, {
    resign: opts.resign === true,
    ...(opts.bodyFile !== undefined ? { body: await _readBody(ctx, opts.bodyFile) } : {}),
    set: opts.set,
    ...(settings !== undefined ? { settings } : {}),
    method,
  });
  if (prepared.warning !== undefined) warn(prepared.warning);
  else if (prepared.resigned === undefined) {
    const stale = staleSignatureWarning(event);
    if (stale !== undefined) warn(stale);
  }
  if (prepared.resigned !== undefined && !opts.json) {
    out.err(
      out.errColors.dim(
        `Re-signed as ${prepared.resigned} with the endpoint's secret, at the current time.\n`,
      ),
    );
  }
  event = prepared.event;
  if ((method === "GET" || method === "HEAD") && event.bodySize > 0) {
    warn(`${method} requests carry no body; the stored ${formatBytes(event.bodySize)} body is not sent.`);
  }
  if (!opts.json) {
    out.err(
      out.errColors.dim(
        `Replaying ${event.id} (${event.endpoint}, ${formatBytes(event.bodySize)}) as ${method} ${
          safeLine(url.href)
        }\n`,
      ),
    );
  }
  const startedAt = new Date();
  let result;
  try {
    result = await replay(event, opts.to, { headers: overrides, method, timeoutMs, signal: ctx.signal });
  } catch (error) {
    await _record(ctx, {
      event,
      url: url.href,
      method,
      startedAt,
      durationMs: 0,
      error: describeError(error),
    });
    throw error;
  }
  await _record(ctx, {
    event,
    url: url.href,
    method,
    startedAt,
    durationMs: result.durationMs,
    status: result.status,
    statusText: result.statusText,
    body: result.body,
    truncated: result.truncated,
  });
  ctx.exit(result.ok ? 0 : 1);
  if (opts.json) {
    out.out(JSON.stringify(result) + "\n");
    return;
  }
  const c = out.colors;
  const paint = result.ok ? c.green : result.status < 400 ? c.yellow : c.red;
  const facts = [
    `${result.durationMs} ms`,
    ...(result.contentType ? [safeLine(result.contentType)] : []),
  ];
  out.out(
    `${paint(`${result.status} ${safeLine(result.statusText)}`.trim())}  ${c.dim(facts.join("  "))}\n`,
  );
  if (result.location !== undefined) {
    out.out(`${c.dim("location:")} ${safeLine(result.location)} (not followed)\n`);
  }
  if (result.body !== "") {
    const clipped = result.body.length > PREVIEW_CHARS || result.truncated;
    out.out(safeBlock(result.body.slice(0, PREVIEW_CHARS)) + (clipped ? c.dim(" ...") : "") + "\n");
  }
}
