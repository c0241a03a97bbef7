/**
 * `hooktap replay EVENT_ID --to URL`: sends a stored event again, byte for
 * byte, and shows what the target answered.
 * @module
 */
import { Command } from "@commander-js/extra-typings";
import { UsageError } from "../errors.ts";
import { parseDuration } from "../store/read/filter.ts";
import { parseHeaderOption } from "../replay/headers.ts";
import { replay, replayUrl } from "../replay/replay.ts";
import { staleSignatureWarning } from "../replay/signatures.ts";
import { formatBytes } from "../ui/format.ts";
import { safeBlock, safeLine } from "../ui/sanitize.ts";
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

/** The `replay` command. */
export function replayCommand(ctx: CommandContext) {
  return new Command("replay")
    .description("Send a stored event again to a URL: same method, headers and exact body bytes")
    .argument("<event-id>", "the event's id, or any unique prefix of it")
    .requiredOption("-t, --to <url>", "where to send it; the original query string is added when it has none")
    .option(
      "-H, --header <header>",
      'add or replace a header: "Name: value" (empty value removes; repeatable)',
      _collect,
      [],
    )
    .option("-X, --method <method>", "send with this method instead of the original")
    .option("--timeout <duration>", "longest wait for the answer", "30s")
    .option("--json", "print the result as one JSON object on stdout")
    .addHelpText(
      "after",
      "\nExit status: 0 when the target answers 2xx, 1 otherwise.\n" +
        "\nExamples:\n  hooktap replay evt_20240501_01HXA5B7 --to http://localhost:3000/webhooks/github\n" +
        '  hooktap replay 01HXA5 --to http://localhost:3000/hook -H "Authorization: Bearer dev"\n' +
        "  hooktap replay 01HXA5 --to https://staging.example.com/hook --json | jq .status\n",
    )
    .action(async (id, opts) => {
      const out = ctx.output;
      const overrides = opts.header.map(parseHeaderOption);
      const timeoutMs = _timeout(opts.timeout);
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
    });
}
