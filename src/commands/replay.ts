/**
 * `hooktap replay EVENT_ID --to URL`: sends a stored event again, byte for
 * byte, and shows what the target answered.
 * @module
 */
import { UsageError } from "../errors.ts";
import { parseDuration } from "../store/read/filter.ts";
import { parseHeaderOption } from "../replay/headers.ts";
import { checkMethod, replay, replayUrl } from "../replay/replay.ts";
import { staleSignatureWarning } from "../replay/signatures.ts";
import { formatBytes } from "../ui/format.ts";
import { safeBlock, safeLine } from "../ui/sanitize.ts";
import type { options } from "../cli/commands/replay.ts";
import type { Input } from "../cli/spec.ts";
import { replayBulk } from "./_replay_bulk.ts";
import { type CommandContext, openStore, resolveEvent, warnSkipped } from "./_shared.ts";

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

/** `hooktap replay`. */
export async function run(ctx: CommandContext, input: Input<typeof options>): Promise<void> {
  const opts = input.options;
  const id = input.args[0];
  const out = ctx.output;
  const overrides = opts.header.map(parseHeaderOption);
  const timeoutMs = _timeout(opts.timeout);
  if (opts.method !== undefined) checkMethod(opts.method);
  replayUrl({ query: "" }, opts.to); // a bad --to is a usage error before anything is read
  if (id === undefined) return await replayBulk(ctx, opts, { headers: overrides, timeoutMs });
  const reader = await openStore(ctx);
  let event;
  try {
    event = await resolveEvent(reader, id);
  } finally {
    reader?.[Symbol.dispose]();
    warnSkipped(ctx, reader);
  }
  const url = replayUrl(event, opts.to);
  const method = (opts.method ?? event.method).toUpperCase();
  const warn = (text: string) => out.err(out.errColors.yellow(`warning: ${text}\n`));
  const stale = staleSignatureWarning(event);
  if (stale !== undefined) warn(stale);
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
  const result = await replay(event, opts.to, {
    headers: overrides,
    method,
    timeoutMs,
    signal: ctx.signal,
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
