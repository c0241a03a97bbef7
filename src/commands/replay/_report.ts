/**
 * What `hooktap replay` prints: one send's answer, a line per failed send of
 * a bulk replay (a progress bar on a terminal), and the summary: what the
 * app answered (status counts, the first error body) with hints that are
 * commands that would work (the right endpoint, `--resign` when stale).
 * @module
 */
import type { ResendSummary, Sent } from "../../send/resend.ts";
import { answeredOk, replayResult } from "../../send/resend.ts";
import { formatBytes } from "../../text/format.ts";
import { progressBar } from "../../term/progress.ts";
import { safeBlock, safeLine } from "../../text/sanitize.ts";
import type { CommandContext } from "../_shared/context.ts";
import { suggestCommand } from "../_shared/hints.ts";
import type { Input } from "../../cli/spec.ts";
import type { EventFilter } from "../../query/filter.ts";
import type { options } from "./command.ts";
import type { ResolvedConfig } from "../../config/types.ts";
import { configName } from "../../text/config_words.ts";

const PREVIEW_CHARS = 1000;

/** Prints the answer of a single replay (stdout), its warnings and notes (stderr). */
export function printSingle(ctx: CommandContext, sent: Sent, json: boolean): void {
  const out = ctx.output;
  const result = replayResult(sent);
  if (json) {
    out.out(JSON.stringify(result) + "\n");
    return;
  }
  const e = out.errColors;
  if (sent.request?.warning !== undefined) out.err(e.yellow(`warning: ${sent.request.warning}\n`));
  if (sent.request?.resigned !== undefined) {
    out.err(
      e.dim(`Re-signed as ${sent.request.resigned} with the endpoint's secret, at the current time.\n`),
    );
  }
  if (sent.request?.body === null && sent.event.bodySize > 0) {
    out.err(e.yellow(
      `warning: ${result.method} requests carry no body; the stored ${
        formatBytes(sent.event.bodySize)
      } body was not sent.\n`,
    ));
  }
  out.err(
    e.dim(
      `Replayed ${sent.event.id} (${sent.event.endpoint}) as ${result.method} ${safeLine(result.url)} ` +
        `(target ${safeLine(result.target)})\n`,
    ),
  );
  if (result.status === undefined) return;
  const c = out.colors;
  const paint = result.ok ? c.green : result.status < 400 ? c.yellow : c.red;
  const facts = [`${result.durationMs} ms`, ...(result.contentType ? [safeLine(result.contentType)] : [])];
  out.out(
    `${paint(`${result.status} ${safeLine(result.statusText ?? "")}`.trim())}  ${c.dim(facts.join("  "))}\n`,
  );
  if (result.location !== undefined) {
    out.out(`${c.dim("location:")} ${safeLine(result.location)} (not followed)\n`);
  }
  if (result.binary) {
    out.out(c.dim(`(binary, ${formatBytes(result.bodySize ?? 0)}: not shown)`) + "\n");
    return;
  }
  const body = result.body ?? "";
  if (body !== "") {
    const clipped = body.length > PREVIEW_CHARS || result.truncated;
    out.out(safeBlock(body.slice(0, PREVIEW_CHARS)) + (clipped ? c.dim(" ...") : "") + "\n");
  }
}

/** Per-send output of a bulk replay: JSON lines, or a line per failure and a progress bar. */
export function printSent(
  ctx: CommandContext,
  total: number,
  json: boolean,
  to: string | undefined,
): { onSend: (sent: Sent) => void; done(): void } {
  const out = ctx.output;
  const c = out.errColors;
  if (!json) {
    out.err(
      c.dim(
        `Replaying ${total} event${total === 1 ? "" : "s"} to ${
          to === undefined ? "their endpoints' forward targets" : safeLine(to)
        } in arrival order...\n`,
      ),
    );
  }
  const bar = progressBar(total, "replay");
  let ok = 0;
  let failed = 0;
  let warned = false;
  return {
    onSend(sent) {
      if (answeredOk(sent)) ok++;
      else failed++;
      const r = replayResult(sent);
      if (json) out.out(JSON.stringify(r) + "\n");
      else if (!r.ok) {
        bar.done();
        const why = r.status !== undefined
          ? `${r.status} ${safeLine(r.statusText ?? "")}`
          : safeLine(r.error ?? "");
        out.err(
          (r.status !== undefined ? c.yellow : c.red)(`${sent.event.id} → ${safeLine(r.target)}: ${why}\n`),
        );
        if (!warned && r.warning !== undefined) {
          warned = true;
          out.err(c.yellow(`warning: ${r.warning}\n`));
        }
      }
      bar.update(ok + failed, `2xx ${ok}  failed ${failed}`);
    },
    done: () => bar.done(),
  };
}

/** The options of the run a hint repeats (those `hooktap replay` takes). */
export type HintOptions = Partial<Omit<Input<typeof options>["options"], "json">>;

/**
 * The command that sends the failures again: this run's filters and options, as given (`--since` and
 * `--until` as the times they stood for, so the command picks the same events later), `--resign` when
 * stale, each word shell-quoted, after the way the user runs hooktap. `first`: the failure it is about
 * (with `--undelivered`, its endpoint is named when the run named none and every failure was of it).
 */
export function againCommand(
  first: Sent,
  summary: ResendSummary,
  opts: HintOptions,
  how: { undelivered: boolean; filter: EventFilter; runner?: string },
): string {
  const words = ["replay"];
  if (how.undelivered) words.push("--undelivered");
  // --undelivered without --endpoint: the failures' endpoint when they share one (the command picks them all).
  const only = summary.failedEndpoints.length === 1 ? first.event.endpoint : undefined;
  const endpoint = opts.endpoint ?? (how.undelivered ? only : undefined);
  _optionWords(words, { ...opts, ...(endpoint !== undefined ? { endpoint } : {}) }, how.filter);
  if (opts.resignInvalid) words.push("--resign-invalid");
  else if (summary.stale > 0 || summary.urlSigned > 0 || opts.resign) words.push("--resign");
  return suggestCommand(words, how.runner);
}

/**
 * The user's own `hooktap replay` command (the event id, or its filters; its options, `--config` too) sent
 * elsewhere: `{ to }` sets `--to` (what to run when the events have no forward target), `{ target }` sends
 * to forward target `target` instead (`--target NAME`, no `--to`). Shell-quoted, after the way the user runs
 * hooktap.
 */
export function commandSentTo(
  id: string | undefined,
  opts: HintOptions,
  filter: EventFilter,
  where: { to: string } | { target: string },
  runner?: string,
): string {
  const words = ["replay"];
  if (id !== undefined) words.push(id);
  if (opts.undelivered) words.push("--undelivered");
  const { to: _to, ...rest } = opts;
  _optionWords(words, "to" in where ? { ...opts, to: where.to } : { ...rest, target: where.target }, filter);
  if (opts.resignInvalid) words.push("--resign-invalid");
  else if (opts.resign) words.push("--resign");
  return suggestCommand(words, runner);
}

/** Appends to `words` the filters and options of a run (`--since`/`--until` as the times they stood for). */
function _optionWords(words: string[], opts: HintOptions, filter: EventFilter): void {
  const add = (flag: string, value: string | undefined) => {
    if (value !== undefined) words.push(flag, value);
  };
  add("--endpoint", opts.endpoint);
  add("--filter-method", opts.filterMethod);
  add("--since", filter.since?.toISOString());
  add("--until", filter.until?.toISOString());
  add("--grep", opts.grep);
  for (const w of opts.where ?? []) add("--where", w);
  for (const h of opts.hasHeader ?? []) add("--has-header", h);
  add("--provider", opts.provider);
  add("--type", opts.type);
  add("--verdict", opts.verdict);
  add("--target", opts.target);
  add("--to", opts.to);
  add("-X", opts.method);
  for (const h of opts.header ?? []) add("-H", h);
  add("--body-file", opts.bodyFile);
  for (const x of opts.set ?? []) add("--set", x);
  if (opts.setNew) words.push("--set-new");
  add("--config", opts.config);
  if (opts.timeout !== undefined && opts.timeout !== 30_000) add("--timeout", `${opts.timeout}ms`);
  if (opts.insecure) words.push("--insecure");
  add("--rate", opts.rate === undefined ? undefined : String(opts.rate));
}

/** The summary line: what went out, what the app answered, what was refused before sending or found no app. */
function _countLine(summary: ResendSummary, total: number): string {
  const notSent = summary.answers["not sent"] ?? 0;
  const unreached = summary.unreached;
  const answers = Object.entries({
    ...summary.answers,
    "no answer": (summary.answers["no answer"] ?? 0) - unreached,
  })
    .filter(([, n]) => n > 0).sort(([a], [b]) => a.localeCompare(b))
    .map(([k, n]) => `${n} × ${k}`).join(", ");
  return `${summary.interrupted ? "Stopped (Ctrl-C). " : ""}Sent ${summary.sent - notSent - unreached} of ` +
    `${total}: ${summary.ok} answered 2xx, ${summary.failed - notSent - unreached} failed` +
    (notSent > 0
      ? `, ${notSent} not sent (refused before sending: your app never saw ${_them(notSent)})`
      : "") +
    (unreached > 0
      ? `, ${unreached} not sent (nothing listens on ${summary.unreachedAt.join(", ")}: no app saw ${
        _them(unreached)
      })`
      : "") +
    "." + (answers === "" ? "" : ` Answers: ${answers}.`) + "\n";
}

const _them = (n: number) => (n === 1 ? "it" : "them");
const _were = (n: number) => (n === 1 ? "was" : "were");

/** Of `n` events, how many `hooktap trigger` made invalid on purpose (their record says so). */
function _faults(summary: ResendSummary, n: number): string {
  if (summary.faults === 0) return "";
  return summary.faults === n
    ? " (made invalid on purpose by `trigger --bad-signature`)"
    : ` (${summary.faults} of them made invalid on purpose by \`trigger --bad-signature\`)`;
}

/**
 * Why events stored with an invalid signature failed: sent as received (the app rightly refuses them), or
 * refused before sending by `--resign`; and the command that re-signs them anyway (`--resign-invalid`).
 */
function _invalidNotes(ctx: CommandContext, summary: ResendSummary, how: SummaryHow): void {
  const out = ctx.output;
  const c = out.errColors;
  if (summary.invalid > 0) {
    const n = summary.invalid;
    out.err(
      c.yellow(
        `${n} of them ${_were(n)} stored with an invalid signature and sent as received${
          _faults(summary, n)
        }: ` +
          `your app refusing ${_them(n)} is right (\`--resign-invalid\` signs ${_them(n)} anew, which a ` +
          `real sender never would).\n`,
      ),
    );
  }
  const n = summary.refusedInvalid;
  const first = summary.firstRefused;
  if (n === 0 || first === undefined) return;
  const command = againCommand(first, summary, { ...how.opts, resignInvalid: true }, how);
  out.err(
    c.yellow(
      `${n} of them ${_were(n)} not sent: ${
        n === 1 ? "its signature was" : "their signatures were"
      } invalid ` +
        `when hooktap received ${_them(n)}${_faults(summary, n)}, and --resign never signs such an event ` +
        `afresh. To send ${_them(n)} anyway, re-signed (which a real sender never would): ` +
        `${safeLine(command)}\n`,
    ),
  );
}

/** How the run went: its options and filters, and whether it was `--undelivered`. */
interface SummaryHow {
  opts: HintOptions;
  undelivered: boolean;
  filter: EventFilter;
  /**
   * The config read (`null`: no file, the starter's endpoints), for whether an endpoint has a secret to
   * re-sign with (`--resign` fails where it has none); `undefined` when it was not read.
   */
  config?: ResolvedConfig | null | undefined;
}

/** The endpoints without a secret among `endpoints`, when the config was read; else `undefined`. */
function _noSecret(
  config: ResolvedConfig | null | undefined,
  endpoints: readonly string[],
): string[] | undefined {
  if (config === undefined) return undefined;
  const signing = (name: string) => config?.endpoints.find((e) => e.name === name)?.signing;
  return endpoints.filter((name) => (signing(name)?.secrets.length ?? 0) === 0);
}

/** The summary of a bulk or `--undelivered` replay: what the app answered (stderr). */
export function printSummary(
  ctx: CommandContext,
  summary: ResendSummary,
  total: number,
  how: SummaryHow,
): void {
  const out = ctx.output;
  const c = out.errColors;
  if (summary.unrecorded > 0) {
    out.err(c.yellow(`warning: ${summary.unrecorded} sends were not recorded in the deliveries log.\n`));
  }
  const line = _countLine(summary, total);
  out.err(summary.failed > 0 ? c.yellow(line) : line);
  const first = summary.firstFailure;
  if (first === undefined) return;
  if (first.record?.refused !== true) _firstFailure(ctx, first); // nothing listened: the count line says so
  // --resign helps a stale signature only where the endpoint has a secret: where none of them has one, the
  // fix is to set it first (and the command below leaves --resign out until then).
  const unsigned = summary.stale > 0 && !how.opts.resign &&
    _noSecret(how.config, summary.failedEndpoints)?.length === summary.failedEndpoints.length;
  if (unsigned) {
    const names = summary.failedEndpoints.map((e) => `"${safeLine(e)}"`).join(", ");
    out.err(
      c.yellow(
        `${summary.stale} of them carried a stale signature, and ${
          summary.failedEndpoints.length === 1 ? "endpoint" : "endpoints"
        } ${names} ${summary.failedEndpoints.length === 1 ? "has" : "have"} no secret in ${
          configName(how.config?.file, ctx.cwd)
        } to sign them afresh with: set it (\`secret\`), then send them ` +
          `with --resign.\n`,
      ),
    );
  } else if (summary.stale > 0 && !how.opts.resign) {
    out.err(
      c.yellow(`${summary.stale} of them carried a stale signature: add --resign to sign them afresh.\n`),
    );
  }
  // A sender that signs the URL it called (Twilio): the stored signature never fits the app's URL.
  const urlSigned = summary.urlSigned > 0 && !how.opts.resign &&
    _noSecret(how.config, summary.failedEndpoints)?.length !== summary.failedEndpoints.length;
  if (urlSigned) {
    out.err(
      c.yellow(
        `${summary.urlSigned} of them carried the signature of the URL their sender called, not your app's: ` +
          "add --resign to sign them for the app's URL.\n",
      ),
    );
  }
  _invalidNotes(ctx, summary, how);
  // When no failure reached the app (each was refused before sending: an invalid signature to re-sign,
  // a bad --set path), fixing the app changes nothing and the same command is refused again: the refusal
  // printed above names the way out.
  // Nor when every failure was an event stored invalid (the app rightly refuses it).
  const notSent = summary.answers["not sent"] ?? 0;
  const refusedOnly = notSent === summary.failed || summary.invalid + notSent === summary.failed;
  const hint = refusedOnly ? undefined : againCommand(
    first,
    { ...summary, ...(unsigned ? { stale: 0 } : {}), urlSigned: urlSigned ? 1 : 0 },
    how.opts,
    how,
  );
  if (hint === undefined) return;
  // --undelivered to the forward targets: a 2xx delivers the event, so the command skips it next time.
  const resendsAll = !(how.undelivered && how.opts.to === undefined);
  const all = summary.ok > 0 && resendsAll
    ? ` (it sends all ${summary.sent} again, the ${summary.ok} answered 2xx too)`
    : "";
  if (summary.unreached === 0) {
    out.err(`Send them again once the app is fixed${all}: ${safeLine(hint)}\n`);
    return;
  }
  // Nothing listened: they reached no app. To their forward targets (--undelivered) they stay undelivered,
  // each as it stood: one dev still holds waits, one that gave up stays given up (never "waits").
  const fix = summary.unreached < summary.failed ? " (and fix what it answered)" : "";
  const still = how.undelivered
    ? ` The ${_unsent(summary.unreached)} ${
      summary.unreached === 1 ? "is" : "are"
    } still undelivered, as before.`
    : "";
  out.err(
    c.yellow(
      `Not sent: nothing listens on ${summary.unreachedAt.join(", ")}.${still} Start the app${fix}, then ` +
        `send ${_them(summary.failed)}${all}: ${safeLine(hint)}\n`,
    ),
  );
}

/** `event` or `N events`, after "the". */
const _unsent = (n: number) => (n === 1 ? "event" : `${n} events`);

/** The first failure's line: its answer (status and the body's start), or why it got none. */
function _firstFailure(ctx: CommandContext, first: Sent): void {
  const r = replayResult(first);
  const what = r.status !== undefined
    ? `${r.status} ${r.statusText ?? ""}`.trim() + (r.body ? `: ${safeLine(r.body.slice(0, 300))}` : "")
    : safeLine(r.error ?? "no answer");
  ctx.output.err(`First failure, ${first.event.id} → ${safeLine(r.target)}: ${what}\n`);
}
