/**
 * `hooktap replay`: sends stored events again through the one send engine
 * (src/send/resend.ts): one id, every event the filters match (bulk), or
 * every forwarded event never delivered (`--undelivered`). The same options
 * apply to all three, and each send is recorded as a delivery.
 * @module
 */
import { ConfigError, HooktapError, NetworkError, UsageError } from "../../errors.ts";
import type { ResolvedConfig } from "../../config/types.ts";
import type { ProviderSettings } from "../../providers/types.ts";
import { type CapturedEvent, markedTargets } from "../../event/record.ts";
import { checkMethod, type Overrides, parseHeaderOption } from "../../send/overrides.ts";
import { noAnswer, openReplayLog, resendEach, type ResendTarget, type Sent } from "../../send/resend.ts";
import { rejectionReason } from "../../send/prepare.ts";
import { targetNameOf } from "../../send/target.ts";
import { readTargetCa } from "../../send/target_ca.ts";
import { compileWhen, type EventTest } from "../../send/choose.ts";
import type { ResolvedForward } from "../../config/forward.ts";
import { compileFilter, matchesFilter } from "../../query/filter.ts";
import { countMatches, scanForward } from "../../store/read/scan.ts";
import type { options } from "./command.ts";
import type { Input } from "../../cli/spec.ts";
import { filterFrom, hasFilter } from "../_shared/filters.ts";
import {
  type CommandContext,
  openStore,
  optionalConfig,
  readBodyFile,
  storeOf,
  warnSkipped,
} from "../_shared/context.ts";
import { checkEndpointName, suggestCommand } from "../_shared/hints.ts";
import { safeLine } from "../../text/sanitize.ts";
import { resolveEvent } from "../../store/read/resolve.ts";
import { commandSentTo, printSent, printSingle, printSummary } from "./_report.ts";
import { configName } from "../../text/config_words.ts";
import { movedTarget } from "../../term/delivery_line.ts";
import { dirnameOf } from "../../text/path.ts";

type Opts = Input<typeof options>["options"];

/** Refuses the options this way of sending cannot honour (exit 2), before anything is read or sent. */
function _checkCombination(opts: Opts, id: string | undefined, filtered: boolean): void {
  if (id !== undefined && opts.undelivered) {
    throw new UsageError("Give an event id or --undelivered, not both.");
  }
  if (id !== undefined && filtered) {
    throw new UsageError(
      `Filters choose the events of a bulk replay; with an event id they would be ignored. ` +
        `Give the id alone, or the filters without it.`,
    );
  }
  if (id !== undefined && opts.rate !== undefined) {
    throw new UsageError("--rate paces a bulk replay; with one event id there is nothing to pace.");
  }
  if (opts.target !== undefined && id === undefined && !opts.undelivered) {
    throw new UsageError(
      "--target chooses the forward target of one event (give its id) or of --undelivered's sends; a bulk " +
        "replay goes to each event's own target. Give an event id or --undelivered, or leave --target out.",
    );
  }
  if (opts.target !== undefined && id !== undefined && opts.to !== undefined) {
    throw new UsageError("--target and --to each say where the event goes: choose one.");
  }
}

/**
 * `replay ID --target NAME`: the target named, one of the event's endpoint's targets now, or the one `dev`
 * forwarded it to (its mark's URL).
 * @throws {UsageError} naming the targets there are, when none has that name.
 */
function _namedTarget(event: CapturedEvent, name: string, config: ResolvedConfig | null, cwd: string): void {
  const configured = config?.endpoints.find((e) => e.name === event.endpoint)?.targets ?? [];
  const names = configured.map((t) => t.name);
  // A `--forward-to` run's mark names its one target by URL (a config's names its targets).
  const marked = event.forward === undefined || event.forward.targets !== undefined
    ? undefined
    : targetNameOf(event.forward.to);
  if (marked !== undefined && !names.includes(marked)) names.push(marked);
  if (names.includes(name)) return;
  throw new UsageError(
    `Endpoint "${event.endpoint}" has no forward target "${name}"` +
      (names.length === 0
        ? `. Give --to URL, or add a target in ${configName(config?.file ?? null, cwd)}.`
        : `: its targets are ${names.map((n) => `"${n}"`).join(", ")} (as \`dev\` and \`logs\` name them).`),
  );
}

/** Each config target's `forward.ca` text, by target (read once, before sending). */
type CaTexts = ReadonlyMap<ResolvedForward, string>;

/** The `forward.ca` of every target in `config`, read relative to the config file's folder. */
async function _caTexts(config: ResolvedConfig | null, cwd: string): Promise<CaTexts> {
  const cas = new Map<ResolvedForward, string>();
  const baseDir = config?.file ? dirnameOf(config.file) : cwd;
  for (const endpoint of config?.endpoints ?? []) {
    for (const target of [...(endpoint.targets ?? []), ...(endpoint.forward ? [endpoint.forward] : [])]) {
      const ca = await readTargetCa(target, baseDir, endpoint.name);
      if (ca !== undefined) cas.set(target, ca);
    }
  }
  return cas;
}

/** A config target's TLS settings for a send: `insecure`, and its CA (`forward.ca`). */
function _tls(target: ResolvedForward | undefined, cas: CaTexts): { insecure?: true; ca?: string } {
  const ca = target === undefined ? undefined : cas.get(target);
  return { ...(target?.insecure ? { insecure: true } : {}), ...(ca !== undefined ? { ca } : {}) };
}

/**
 * The target `dev` forwarded `event` to (its forward mark: `--forward-to` of that run, or a config target),
 * so a replay counts for it: the config's target of that name (its URL now), else the URL marked.
 * `undefined` when the mark names none it can find (not forwarded, no rule matched).
 */
function _markedTarget(
  event: CapturedEvent,
  targets: readonly ResolvedForward[] | undefined,
  cas: CaTexts,
): { name: string; to: string; insecure: boolean; ca?: string } | undefined {
  const mark = event.forward;
  if (mark === undefined) return undefined;
  const name = markedTargets(mark)[0];
  if (name === undefined) return undefined;
  const configured = targets?.find((t) => t.name === name);
  if (configured !== undefined) {
    return { name, to: configured.to, ..._tls(configured, cas), insecure: configured.insecure };
  }
  return targetNameOf(mark.to) === name ? { name, to: mark.to, insecure: false } : undefined;
}

/**
 * Where each event goes: `--to`, else the target `dev` forwarded it to (its mark), else its endpoint's
 * forward target.
 */
function _targets(
  opts: Opts,
  config: ResolvedConfig | null,
  timeoutMs: number,
  missed?: (event: CapturedEvent) => string | undefined,
  noTarget?: (event: CapturedEvent) => UsageError,
  cas: CaTexts = new Map(),
): (event: CapturedEvent) => ResendTarget {
  const common = { timeoutMs, insecure: opts.insecure ?? false };
  if (opts.to !== undefined && opts.undelivered) {
    // Sent on behalf of the target that missed it: the delivery counts for that target.
    return (event) => ({
      name: missed?.(event) ?? targetNameOf(event.forward?.to ?? opts.to!),
      to: opts.to!,
      ...common,
    });
  }
  if (missed !== undefined) {
    // The target that missed it, as the config has it now (else the URL it was marked with).
    return (event) => {
      const name = missed(event);
      const endpoint = config?.endpoints.find((e) => e.name === event.endpoint);
      const target = endpoint?.targets?.find((t) => t.name === name);
      const to = target?.to ?? event.forward?.to;
      if (to === undefined || name === undefined) {
        return _targets(opts, config, timeoutMs, undefined, noTarget, cas)(event);
      }
      return { name, to, ...common, ..._tls(target, cas) };
    };
  }
  if (opts.to !== undefined) {
    const fixed = { name: targetNameOf(opts.to), to: opts.to, ...common };
    return () => fixed;
  }
  const tests = new Map<ResolvedForward, EventTest>();
  const takes = (target: ResolvedForward, event: CapturedEvent) => {
    let test = tests.get(target);
    if (test === undefined) tests.set(target, test = compileWhen(target.when));
    return test(event);
  };
  return (event) => {
    const endpoint = config?.endpoints.find((e) => e.name === event.endpoint);
    const marked = _markedTarget(event, endpoint?.targets, cas);
    if (marked !== undefined) return { ...marked, ...common, ...(marked.insecure ? { insecure: true } : {}) };
    // Not forwarded by dev (no rule took it, or dev did not forward): the first target whose rule takes it
    // now, else the endpoint's first target, under its own name (a send to it counts for it).
    const forward = endpoint?.targets?.find((t) => takes(t, event)) ?? endpoint?.forward;
    const to = forward?.to ?? event.forward?.to;
    if (to === undefined) {
      throw noTarget?.(event) ?? new UsageError(`Endpoint "${event.endpoint}" has no forward target.`);
    }
    return {
      name: forward?.name ?? targetNameOf(to),
      to,
      ...common,
      ..._tls(forward, cas),
    };
  };
}

/**
 * The usage error for events with no target: the user's own command with `--to` added (keeping the id or
 * the filters, the options and `--config`), or a forward target to set in the config file it read.
 */
function _noTarget(
  who: string,
  endpoint: string,
  path: string,
  withTo: (to: string) => string,
  config: ResolvedConfig | null,
  cwd: string,
): UsageError {
  const to = `http://localhost:3000${/[:*]/.test(path) ? "/" : path}`;
  return new UsageError(
    `Where should ${who} go? Endpoint "${endpoint}" has no forward target. Give --to URL ` +
      `(${withTo(to)}), or set one in ${configName(config?.file, cwd)}: ` +
      `{ name: "${endpoint}", forward: "${to}" }.`,
  );
}

/** Warns when the `hooktap dev` running here still has `event` waiting for `target`: it sends it too. */
async function _warnHeldByDev(ctx: CommandContext, event: CapturedEvent, target: string): Promise<void> {
  const { heldByDev } = await import("../../send/held_by_dev.ts");
  const held = await heldByDev(storeOf(ctx), [event], () => target);
  if (held !== undefined && held.ids.size > 0) {
    ctx.output.err(ctx.output.errColors.yellow(_heldOneWarning(held.pid)));
  }
}

function _heldOneWarning(pid: number): string {
  return `warning: the hooktap dev running here (pid ${pid}) still has this event waiting for its target: it ` +
    "sends it too as soon as the app listens, so the app may get it twice (stop that dev first to send it " +
    "only once, or send it elsewhere with --to URL).\n";
}

function _heldNote(n: number, pid: number, only: boolean): string {
  const them = n === 1 ? "it" : "them";
  return `${n === 1 ? "1 undelivered event is" : `${n} undelivered events are`} still pending while a ` +
    `hooktap dev runs here (pid ${pid}), which delivers waiting events as soon as their app listens: a replay ` +
    `now could deliver ${them} twice, so ${
      only ? "nothing was sent" : `this replay leaves ${them}`
    }. To send ` +
    `${them} yourself, stop that dev first (or send ${them} elsewhere with --to URL).\n`;
}

function _keptNote(
  group: { endpoint: string; target: string; ids: readonly string[] },
  pid: number,
  config: string | undefined,
): string {
  const n = group.ids.length;
  const them = n === 1 ? "it" : "them";
  const command = suggestCommand([
    "replay",
    "--undelivered",
    "--endpoint",
    group.endpoint,
    "--target",
    group.target,
    "--to",
    "URL",
    ...(config !== undefined ? ["--config", config] : []),
  ]);
  return `${n === 1 ? "1 undelivered event was" : `${n} undelivered events were`} kept for target ` +
    `${safeLine(group.target)} of endpoint ${safeLine(group.endpoint)}, which the hooktap dev running here ` +
    `(pid ${pid}) no longer forwards to: that dev never sends ${them}, so this replay sends ${them} to the ` +
    `URL ${n === 1 ? "it was" : "they were"} kept for (${safeLine(command)} sends ${them} elsewhere).\n`;
}

/**
 * The signing settings of each endpoint: `undefined` when the config was not read (`config` undefined), `null`
 * when it was (the starter config when there is no file) and the endpoint has no secret.
 */
function _settingsOf(
  config: ResolvedConfig | null | undefined,
): (endpoint: string) => ProviderSettings | null | undefined {
  return (endpoint) =>
    config === undefined ? undefined : config?.endpoints.find((e) => e.name === endpoint)?.signing ?? null;
}

/**
 * The config a replay that needs none (to `--to`, without `--resign`) reads only to make its hint true: an
 * event its app will refuse (a stale timestamped signature) is sent as stored, with a warning whose fix is
 * `--resign` only when the endpoint has a secret to sign with, else setting that secret. The file is read
 * when it is there; one that does not load (a config reading Deno.env without --allow-env) leaves the
 * hint as if unread (`undefined`: `--resign`, which reads it and says what is wrong), since the send itself
 * needs no config. `event`: the one event replayed.
 */
async function _configForHint(
  ctx: CommandContext,
  event?: CapturedEvent,
): Promise<ResolvedConfig | null | undefined> {
  // One event: read only when its stored signature will be refused (the common replay reads nothing more).
  if (event !== undefined && rejectionReason(event, false, undefined, new Date()) === undefined) {
    return undefined;
  }
  try {
    return await optionalConfig(ctx, undefined);
  } catch (error) {
    if (error instanceof ConfigError) return undefined;
    throw error;
  }
}

/** What the user changes in each event sent (`-X`, `-H`, `--set`, `--set-new`, `--body-file`). */
async function _overrides(ctx: CommandContext, opts: Opts): Promise<Overrides> {
  return {
    headers: opts.header.map(parseHeaderOption),
    set: opts.set,
    ...(opts.method !== undefined ? { method: opts.method } : {}),
    ...(opts.setNew ? { setNew: true } : {}),
    ...(opts.bodyFile !== undefined ? { body: await readBodyFile(ctx, opts.bodyFile) } : {}),
  };
}

/** What {@linkcode _replayOne} shares with a bulk replay. */
interface OneParts {
  config: ResolvedConfig | null;
  needsConfig: boolean;
  base: Omit<Parameters<typeof resendEach>[1], "log" | "onSend" | "keepAlive">;
  noTarget: (event: CapturedEvent) => UsageError;
  /** The user's command sent to forward target NAME instead. */
  withTarget: (target: string) => string;
  timeoutMs: number;
  /** The config targets' `forward.ca` texts. */
  cas: CaTexts;
}

/**
 * The error of a replay of one event that got no answer, led by what failed. Where nothing listened: with
 * `--to`, whether that URL is right; where `dev` forwarded the event and that target is no longer in the
 * config (the app moved and its forward URL was changed, {@linkcode movedTarget}), where the endpoint forwards
 * now, with the command that sends it there, rather than "is your app running?" while it runs there; else
 * whether the app runs.
 */
function _noAnswer(
  sent: Sent,
  event: CapturedEvent,
  opts: Opts,
  config: ResolvedConfig | null,
  withTarget: (target: string) => string,
  cwd: string,
): NetworkError {
  if (sent.error?.kind !== "refused") return noAnswer(sent);
  if (opts.to !== undefined) {
    return noAnswer(sent, "is the URL given with --to right, and does what should answer there run?");
  }
  const moved = opts.target !== undefined ? undefined : movedTarget(
    sent.target.name,
    config?.endpoints.find((e) => e.name === event.endpoint)?.targets ?? [],
  );
  if (moved === undefined) return noAnswer(sent);
  const error = noAnswer(sent, "");
  return new NetworkError(
    `${error.message} ${sent.target.name} is where dev forwarded it, and no longer a forward target of ` +
      `endpoint "${event.endpoint}" in ${
        configName(config?.file, cwd)
      }, which forwards to ${moved.to} now: ` +
      `${withTarget(moved.name)} sends it there.`,
    { cause: error.cause },
  );
}

/** `hooktap replay ID`: one event, to `--to`, `--target`'s target or where `dev` forwarded it. */
async function _replayOne(ctx: CommandContext, opts: Opts, id: string, parts: OneParts): Promise<void> {
  const { config, needsConfig, noTarget, timeoutMs, cas } = parts;
  const reader = await openStore(ctx);
  let event: CapturedEvent;
  try {
    event = await resolveEvent(reader, id);
  } finally {
    reader?.[Symbol.dispose]();
    warnSkipped(ctx, reader);
  }
  let named: string | undefined;
  if (opts.target !== undefined) {
    _namedTarget(event, opts.target, config, ctx.cwd);
    named = opts.target;
  }
  const targetOf = _targets(
    opts,
    config,
    timeoutMs,
    named === undefined ? undefined : () => named,
    noTarget,
    cas,
  );
  const target = targetOf(event); // no target: a usage error before sending
  const base = { ...parts.base, targetOf };
  if (!needsConfig) base.settingsOf = _settingsOf(await _configForHint(ctx, event));
  if (opts.to === undefined) await _warnHeldByDev(ctx, event, target.name);
  const log = await openReplayLog(storeOf(ctx), [event]);
  let sent: Sent | undefined;
  try {
    // One send: a connection of its own, closed after the answer, whose wait is AbortSignal.timeout; the
    // pool's 50 ms ticker would load Deno's Node timers (a process's first setInterval, ~5 ms).
    await resendEach([event], { ...base, keepAlive: false, log, onSend: (s) => void (sent = s) });
  } finally {
    await log.close();
  }
  if (sent === undefined) return;
  if (sent.problem) throw sent.problem;
  const out = ctx.output;
  if (sent.unrecorded) out.err("warning: this send was not recorded in the deliveries log.\n");
  if (sent.response === undefined) {
    if (opts.json) printSingle(ctx, sent, true);
    throw _noAnswer(sent, event, opts, config, parts.withTarget, ctx.cwd);
  }
  printSingle(ctx, sent, opts.json ?? false);
  ctx.exit(sent.response.status >= 200 && sent.response.status < 300 ? 0 : 1);
}

/** `hooktap replay`. */
export async function run(ctx: CommandContext, input: Input<typeof options>): Promise<void> {
  const opts = input.options;
  const id = input.args[0];
  const filter = await filterFrom(opts);
  _checkCombination(opts, id, hasFilter(filter));
  const timeoutMs = opts.timeout;
  if (opts.method !== undefined) checkMethod(opts.method);
  const rate = opts.rate;
  if (id === undefined && !opts.undelivered && !hasFilter(filter)) {
    throw new UsageError(
      "Give an event id, or filters to replay many (--endpoint, --since, --until, --grep, --where, ...), " +
        `or --undelivered: ${suggestCommand(["replay", "--endpoint", "github", "--since", "2h"])}. ` +
        `Run \`${suggestCommand(["logs"])}\` to see ids.`,
    );
  }
  const overrides = await _overrides(ctx, opts);
  // The config holds the forward targets and the secrets: read only when one of them is needed (a config
  // that reads Deno.env needs --allow-env, which a plain replay to a URL does not).
  const resign = opts.resign === true || opts.resignInvalid === true;
  const needsConfig = opts.to === undefined || resign || opts.bodyFile !== undefined ||
    opts.set.length > 0 || opts.config !== undefined;
  const config = needsConfig ? await optionalConfig(ctx, opts.config) : null;
  let missed: ((event: CapturedEvent) => string | undefined) | undefined; // --undelivered: the target that missed it
  const withTo = (to: string) => commandSentTo(id, opts, filter, { to });
  const noTarget = (event: CapturedEvent) =>
    _noTarget(event.id, event.endpoint, event.path, withTo, config, ctx.cwd);
  // With --to no config target is sent to: their `ca` files are not read (one unreadable would stop it).
  const cas: CaTexts = opts.to === undefined ? await _caTexts(config, ctx.cwd) : new Map();
  const targetOf = (event: CapturedEvent) => _targets(opts, config, timeoutMs, missed, noTarget, cas)(event);
  const base = {
    targetOf,
    overrides,
    resign,
    ...(opts.resignInvalid ? { resignInvalid: true } : {}),
    settingsOf: _settingsOf(needsConfig ? config : undefined),
    signal: ctx.signal,
    ...(rate !== undefined ? { rate } : {}),
  };
  const out = ctx.output;
  if (id !== undefined) {
    const withTarget = (target: string) => commandSentTo(id, opts, filter, { target });
    return await _replayOne(ctx, opts, id, {
      config,
      needsConfig,
      base,
      noTarget,
      withTarget,
      timeoutMs,
      cas,
    });
  }
  let events: AsyncIterable<CapturedEvent> | CapturedEvent[];
  let total: number;
  let dispose = () => {};
  if (opts.undelivered) {
    const { findUndelivered } = await import("../../send/undelivered.ts");
    const found = await findUndelivered(storeOf(ctx));
    const missedOf = (e: CapturedEvent) => found.due.get(e.id) ?? found.failedTargets.get(e.id) ?? [];
    missed = (e) => opts.target ?? missedOf(e)[0];
    const matching = [...found.pending, ...found.failed].sort((a, b) => (a.id < b.id ? -1 : 1)).filter((e) =>
      matchesFilter(e, filter) &&
      (opts.target === undefined || missedOf(e).includes(opts.target))
    );
    // While a dev runs here, the events still pending are its own to send (it sends them as soon as their app
    // listens, or reports those marked for a target it does not forward to): a replay to their targets now
    // would deliver them twice. Given-up ones are no dev's any more.
    const { heldByDev } = await import("../../send/held_by_dev.ts");
    const held = opts.to === undefined ? await heldByDev(storeOf(ctx), matching) : undefined;
    const list = held === undefined ? matching : matching.filter((e) => !held.ids.has(e.id));
    if (held !== undefined && held.ids.size > 0) {
      out.err(_heldNote(held.ids.size, held.pid, list.length === 0));
    }
    // Kept for a target that dev no longer sends to: this replay sends them (dev never will), to the URL
    // they were kept for, unless --target and --to send them elsewhere.
    for (const group of held?.kept.values() ?? []) out.err(_keptNote(group, held!.pid, opts.config));
    if (list.length === 0 && held !== undefined) return;
    if (list.length === 0) {
      if (opts.endpoint !== undefined) await checkEndpointName(ctx, opts.endpoint, null, opts.config);
      out.err(
        hasFilter(filter) || opts.target !== undefined
          ? "No undelivered events match these filters.\n"
          : "No undelivered events: every forwarded event got a 2xx answer.\n",
      );
      return;
    }
    events = list;
    total = list.length;
  } else {
    const reader = await openStore(ctx);
    if (reader === null) {
      out.err("No events stored yet: nothing to replay.\n");
      return;
    }
    const compiled = compileFilter(filter);
    total = await countMatches(reader, compiled);
    if (total === 0) {
      try {
        if (opts.endpoint !== undefined) await checkEndpointName(ctx, opts.endpoint, reader, opts.config);
      } finally {
        reader[Symbol.dispose]();
      }
      out.err("No stored events match these filters.\n");
      return;
    }
    events = (async function* () {
      for await (const m of scanForward(reader, compiled)) yield m.event;
    })();
    dispose = () => {
      reader[Symbol.dispose]();
      warnSkipped(ctx, reader);
    };
  }
  if (filter.endpoint !== undefined && opts.to === undefined) {
    const probe = config?.endpoints.find((e) => e.name === filter.endpoint);
    if (probe !== undefined && probe.forward === undefined && !opts.undelivered) {
      throw _noTarget("these events", probe.name, probe.path, withTo, config, ctx.cwd);
    }
  }
  // Any of them may need the hint (a stale signature): the config read once for all, as for one event.
  const hintConfig = needsConfig ? config : await _configForHint(ctx);
  base.settingsOf = _settingsOf(hintConfig);
  const log = await openReplayLog(storeOf(ctx), Array.isArray(events) ? events : undefined);
  const report = printSent(ctx, total, opts.json ?? false, opts.to);
  let summary;
  try {
    summary = await resendEach(events, { ...base, log, onSend: report.onSend });
  } finally {
    report.done();
    dispose();
    await log.close();
  }
  const how = { opts, undelivered: opts.undelivered ?? false, filter, config: hintConfig };
  printSummary(ctx, summary, total, how);
  if (summary.interrupted) throw new HooktapError("Stopped.", { exitCode: 130, reported: true });
  ctx.exit(summary.failed > 0 ? 1 : 0);
}
