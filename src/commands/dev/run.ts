/**
 * `hooktap dev`: the receiver. Finds the config (or asks for one), starts a
 * dev session (src/dev/session.ts), prints its banner and activity, and
 * stops it on Ctrl-C or SIGTERM.
 * @module
 */
import { starterConfig } from "../../config/load.ts";
import { type ConfigGeneration, fixedGeneration, openConfig } from "../../config/generation.ts";
import { type ConfigGenerations, holdGenerations } from "../../dev/config_generations.ts";
import { configFromAnswers } from "../../config/starter.ts";
import { CONFIG_FILE_NAME, type ResolvedConfig } from "../../config/types.ts";
import { validateConfig } from "../../config/validate.ts";
import { writeConfigFile } from "../../config/write.ts";
import { startLive } from "../../dev/live.ts";
import { compose, stopRequested } from "../../dev/lifecycle.ts";
import {
  type Listening,
  recordingUnmatched,
  sinkFor,
  startControlSocket,
  startForwardingPart,
  startListener,
  startTriggerKeys,
} from "../../dev/session.ts";
import { openStoreForWriting, type WritingStore } from "../../store/write/open.ts";
import type { LockOwner } from "../../store/write/lock.ts";
import { LogGoneError } from "../../store/write/writer.ts";
import type { StorePaths } from "../../store/paths.ts";
import { createRouter } from "../../route/router.ts";
import { newRunNonce } from "../../receiver/probe.ts";
import type { Handler, RequestOutcome } from "../../receiver/handler.ts";
import type { ResolvedForward } from "../../config/forward.ts";
import type { ForwardingSession } from "../../send/session.ts";
import type { Output } from "../../term/output.ts";
import type { HubOrder } from "../../hub/order.ts";
import type { Launched } from "../../inspector/launch.ts";
import type { LiveFeed } from "../../inspector/live.ts";
import {
  forwardFlag,
  forwardFlagWords,
  forwardingCallbacks,
  reportForwarding,
  waitingNote,
} from "../../dev/forward.ts";
import { launchInspector } from "../../inspector/launch.ts";
import { createLiveFeed } from "../../inspector/live.ts";
import { resignerFor } from "../../send/resigner.ts";
import { resendNeedsResign } from "../../send/session.ts";
import { localPort, loopProblem } from "../../send/loop_check.ts";
import { describeError, StoreError, UsageError } from "../../errors.ts";
import { basenameOf, dirnameOf, pathInside, resolvePath } from "../../text/path.ts";
import { preloadDigests } from "../../providers/hmac.ts";
import { connectHub, type HubClient, parseChannelUrl } from "../../hub/client.ts";
import type { HubState } from "../../hub/cursor_file.ts";
import { createHubOrder } from "../../hub/order.ts";
import {
  HUB_TOKEN_ENV,
  type HubTokenSource,
  hubTokenSource,
  tokenFlagWarning,
} from "../../hub/token_source.ts";
import {
  hubChange,
  hubGapLine,
  hubLine,
  hubRefusedLine,
  hubRewoundLine,
  hubSkippedLine,
} from "../../term/hub_line.ts";
import { banner, createActivityLog } from "../../term/dev_log.ts";
import type { Endpoint } from "../../config/types.ts";
import { cutOffNote, drainNote, lostDeliveriesNote } from "../../term/drain_note.ts";
import { retentionLine } from "../../term/retention_line.ts";
import { toleratingClosedStderr } from "../../term/closed_stderr.ts";
import { safeLine } from "../../text/sanitize.ts";
import { plural } from "../../text/format.ts";
import { askStarterAnswers, whyNoPrompt } from "../../term/prompts.ts";
import type { options } from "./command.ts";
import type { Input } from "../../cli/spec.ts";
import { type CommandContext, storeOf, uiPlan } from "../_shared/context.ts";
import { invokedAs } from "../_shared/hints.ts";
import { refuseInsideStore } from "../../store/write/user_file.ts";
import { validAtReceipt } from "../../event/record.ts";
import { suggestCommand } from "../../text/command_line.ts";

const STACK_ENV = "HOOKTAP_STACK";

/**
 * The hub channel and token from the flags, the environment, `.hooktap/hub-token` and the config, or
 * `undefined` (no hub).
 */
async function hubPlan(
  opts: { hub?: string | undefined; hubToken?: string | undefined },
  config: ResolvedConfig,
  dataDir: string,
): Promise<{ url: string; token: string; tokenSource: HubTokenSource } | undefined> {
  const url = opts.hub ?? config.hub?.url;
  if (url === undefined) {
    if (opts.hubToken !== undefined) {
      throw new UsageError("--hub-token needs --hub (or hub.url in the config).");
    }
    return undefined;
  }
  const tokenSource = await hubTokenSource({ flag: opts.hubToken, config: config.hub?.token, dataDir });
  if (tokenSource === undefined) {
    throw new UsageError(
      `The hub channel ${url} needs its token: set ${HUB_TOKEN_ENV}, or write it in .hooktap/hub-token ` +
        "(chmod 600), or hub.token in the config.",
    );
  }
  parseChannelUrl(url); // a clear error for a URL that is not a channel's
  return { url, token: tokenSource.token, tokenSource };
}

/** The hub client's name: `--hub-client`, else `<host name>-<project directory>`, kept to the hub's alphabet. */
function hubClientName(flag: string | undefined, cwd: string): string {
  if (flag !== undefined) {
    if (!/^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/.test(flag)) {
      throw new UsageError(
        `--hub-client must be letters, digits, ".", "_", "@" or "-" (at most 64, starting with a letter or digit), got "${flag}".`,
      );
    }
    return flag;
  }
  let host = "";
  try {
    if (Deno.permissions.querySync({ name: "sys", kind: "hostname" }).state === "granted") {
      host = Deno.hostname();
    } else if (Deno.permissions.querySync({ name: "env", variable: "HOSTNAME" }).state === "granted") {
      host = Deno.env.get("HOSTNAME") ?? "";
    }
  } catch { /* no host name: the directory alone */ }
  const name = [host.split(".")[0], basenameOf(cwd)].filter((p) => p !== undefined && p !== "").join("-")
    .replace(/[^A-Za-z0-9._@-]+/g, "-").replace(/^[^A-Za-z0-9]+/, "").slice(0, 64);
  return name === "" ? "dev" : name;
}

/**
 * `HOOKTAP_STACK` (deno or node), read only when Deno already grants it.
 * @throws {UsageError} when it names neither: a typo must not leave the user on the other stack unawares.
 */
function stackOverride(): "deno" | "node" | undefined {
  if (Deno.permissions.querySync({ name: "env", variable: STACK_ENV }).state !== "granted") return undefined;
  const value = Deno.env.get(STACK_ENV);
  if (value === undefined || value === "") return undefined;
  if (value === "deno" || value === "node") return value;
  throw new UsageError(
    `${STACK_ENV} must be "deno" (Deno.serve, the default) or "node" (node:http), got "${
      value.slice(0, 40)
    }". ` +
      `Set it to one of them, or unset it for the default.`,
  );
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|::1|\[::1\])$/;

async function configForDev(
  ctx: CommandContext,
  path: string | undefined,
  port: number | undefined,
): Promise<ConfigGeneration> {
  const generation = await openConfig({ cwd: ctx.cwd, path });
  if (generation !== null) return generation;
  const c = ctx.output.errColors;
  const file = resolvePath(ctx.cwd, CONFIG_FILE_NAME);
  const why = whyNoPrompt(file);
  if (why === undefined) {
    const answers = await askStarterAnswers("No hooktap.config.ts here yet: let's write one.");
    await writeConfigFile(file, answers);
    return fixedGeneration(validateConfig(configFromAnswers(answers), file));
  }
  ctx.output.err(
    c.yellow(`No hooktap.config.ts here and ${why}: using the built-in starter config `) +
      `(${
        port === undefined
          ? "port 8787"
          : port === 0
          ? "any free port, as --port 0 asked"
          : `port ${port}, as --port asked`
      }, POST /webhook as "default"). ` +
      `Nothing was written; \`${suggestCommand(["init", "--yes"])}\` ` +
      "writes it.\n",
  );
  return fixedGeneration(starterConfig());
}

/** What `dev` starts, checked before anything starts. */
interface DevPlan {
  opts: Input<typeof options>["options"];
  config: ResolvedConfig;
  generations: ConfigGenerations;
  port: number;
  stack: "deno" | "node" | undefined;
  fallback: ResolvedForward | undefined;
  ui: false | { port: number | null };
  hub:
    | {
      url: string;
      token: string;
      tokenSource: HubTokenSource;
      clientName: string | undefined;
      order: HubOrder;
    }
    | undefined;
  paths: StorePaths;
  readyFile: string | undefined;
}

/** The parts of a running `dev` the banner, the summary and the wait read. */
interface DevParts {
  store: WritingStore;
  listening: Listening;
  forwarding: ForwardingSession | undefined;
  hub: HubClient | undefined;
  inspector: Launched | undefined;
}

/** `hooktap dev`. */
export async function run(given: CommandContext, input: Input<typeof options>): Promise<void> {
  // A dev whose stderr reader went away (`dev 2>&1 | head -1`, a closed terminal) keeps receiving.
  const ctx: CommandContext = { ...given, output: toleratingClosedStderr(given.output) };
  const opts = input.options;
  const out = ctx.output;
  const c = out.errColors;
  const port = opts.port;
  const stack = stackOverride();
  const fallback = forwardFlag(opts.forwardTo, opts.forwardMode, opts.forwardEvents); // usage errors first
  // Its response functions run in a worker while dev runs: ended after the receiver drained, at the stop.
  await using generations = holdGenerations(await configForDev(ctx, opts.config, port));
  const config = generations.current.config;
  for (const warning of config.warnings) out.err(c.yellow(`warning: ${warning}\n`));
  if (!LOOPBACK.test(opts.host)) {
    out.err(
      c.yellow(
        `warning: binding ${opts.host}: anyone who can reach this machine on ${
          (port ?? config.port) === 0 ? "the port dev picks" : `port ${port ?? config.port}`
        } can send events to hooktap and see its answers. Use the default 127.0.0.1 unless you mean it.\n`,
      ),
    );
  }
  const ui = uiPlan(opts, config, port ?? config.port); // a usage error before anything else
  const hubChannel = await hubPlan(opts, config, storeOf(ctx).dir); // a usage error before anything else
  if (opts.hubToken !== undefined) {
    out.err(
      c.yellow(`warning: ${tokenFlagWarning("--hub-token", `${HUB_TOKEN_ENV} or .hooktap/hub-token`)}\n`),
    );
  }
  if (opts.hubClient !== undefined && hubChannel === undefined) {
    throw new UsageError("--hub-client needs --hub (or hub.url in the config).");
  }
  const hubClient = hubChannel ? hubClientName(opts.hubClient, ctx.cwd) : undefined;
  const paths = storeOf(ctx);
  const readyFile = opts.readyFile === undefined ? undefined : resolvePath(ctx.cwd, opts.readyFile);
  // Before anything listens: a ready file in .hooktap, or a hard link of the log, would replace the log.
  if (readyFile !== undefined) await refuseInsideStore(readyFile, paths.dir, "--ready-file");
  const plan: DevPlan = {
    opts,
    config,
    generations,
    port: port ?? config.port,
    stack,
    fallback,
    ui,
    hub: hubChannel && { ...hubChannel, clientName: hubClient, order: createHubOrder() },
    paths,
    readyFile,
  };
  // Each part starts onto one stack; a failure at any step unwinds the ones started, last first.
  const running = await compose((parts) => startParts(parts, ctx, plan));
  const parts = running.value;
  const eventsFile = pathInside(ctx.cwd, paths.events) || paths.events;
  printBanner(ctx, plan, parts, eventsFile);
  // The first signed request would wait for node:crypto to load (~20–30 ms): load it now, while dev is idle.
  if (config.endpoints.some((e) => (e.signing?.secrets.length ?? 0) > 0)) {
    setTimeout(preloadDigests, 0);
  }
  let failure: { error: unknown } | undefined;
  await Promise.race([
    stopRequested(ctx.signal, parts.listening.finished).catch((error) => void (failure ??= { error })),
    // `rm -rf .hooktap` while dev runs: nothing more can be saved where readers look, so dev stops and says so.
    parts.store.writer.gone.then((lost) =>
      void (failure ??= { error: storeLostError(parts.store, eventsFile, lost) })
    ),
  ]);
  await running.stop(); // live parts, inspector, hub, drain, forwarding, store: once, last started first
  if (failure !== undefined) throw failure.error;
  out.err(`\n${stoppedLine(parts.store, eventsFile)}\n`);
}

/** The summary at the stop: the session's events, and where they are (a prune, rm or retention took some). */
function stoppedLine(store: WritingStore, eventsFile: string): string {
  const captured = `Stopped. ${plural(store.writer.count, "event")} captured this session`;
  const inLog = store.eventsInLog;
  if (inLog === undefined) return `${captured}, in ${eventsFile}.`;
  return `${captured}; ${eventsFile} holds ${plural(inLog, "event")} now, as events were removed while dev ` +
    "ran (prune, rm or retention).";
}

/** Why dev stopped when its event log was deleted or moved away while it ran. */
function storeLostError(store: WritingStore, eventsFile: string, lost: StoreError): StoreError {
  const n = store.writer.count;
  if (!(lost instanceof LogGoneError)) {
    // Another dev took the directory over (its lock file was deleted under this one): the log stays, theirs now.
    return new StoreError(`hooktap dev stopped: ${lost.message}.`);
  }
  return new StoreError(
    `hooktap dev stopped: ${eventsFile} was deleted or moved away while it ran, so no event could be saved ` +
      "any more (any request that came since was answered 503, which senders retry)." +
      (n === 0
        ? ""
        : ` The ${plural(n, "event")} captured this session before that ${n === 1 ? "was" : "were"} in it.`) +
      ` Start hooktap dev again: it starts a new event log (to clear the events while dev runs, use ${
        suggestCommand(["rm", "--all"])
      }).`,
  );
}

/** Starts dev's parts onto `parts` in order: the store and what keeps it, the listener, hub, inspector, live. */
async function startParts(
  parts: AsyncDisposableStack,
  ctx: CommandContext,
  plan: DevPlan,
): Promise<DevParts> {
  const { opts, config, paths } = plan;
  const out = ctx.output;
  const c = out.errColors;
  const onNotice = (message: string) => out.err(`${safeLine(message)}\n`);
  const store = parts.use(await openStoreForWriting(paths));
  let stopping = false; // the store was lost: dev stops, and says why
  let logGone = false;
  void store.writer.gone.then((lost) => void ((stopping = true), (logGone = lost instanceof LogGoneError)));
  const keys = parts.use(await startTriggerKeys(paths.dir, config.endpoints));
  const endpoints = keys.endpoints;
  const unmatched = parts.use(await store.openUnmatched());
  const control = parts.use(await startControlSocket(store, onNotice));
  if (config.retention !== undefined) {
    parts.use(store.startRetention(config.retention, {
      onPruned: (r) => out.err(retentionLine(r, c)),
      onError: (e) => out.err(retentionLine(e instanceof Error ? e : new Error(String(e)), c)),
    }));
  }
  const forwarding = await startForwardingPart(paths, endpoints, {
    fallback: plan.fallback,
    ...(config.file ? { baseDir: dirnameOf(config.file) } : {}),
    ...forwardingCallbacks(out, {
      json: opts.json ?? false,
      quiet: opts.quiet ?? false,
      // An event whose sender hooktap did not recognise has nothing to sign afresh (`replay --resign`
      // refuses it): its command sends it as stored. Only a signature found valid at receipt is told to be
      // signed afresh, as the forwarder renews only those (src/send/resign_stale.ts): one that came unsigned
      // (anyone's POST), unchecked (no secret then), invalid or expired would get a signature no sender made.
      resignsOf: (name, event) =>
        (event === undefined || validAtReceipt(event)) &&
        (event === undefined || event.provider !== undefined) &&
        resendNeedsResign(config.endpoints.find((e) => e.name === name), event?.provider),
      runner: invokedAs(),
      ...(opts.config !== undefined ? { config: opts.config } : {}),
    }),
  });
  if (forwarding) {
    // Said once forwarding has stopped (unwound after it): what still waits for the app, and where it goes.
    const flags = forwardFlagWords(opts.forwardTo, opts.forwardMode, opts.forwardEvents); // needed to resume
    parts.defer(() => {
      // Deliveries still waiting were events of a log that is gone: no later dev reads them again.
      if (logGone) out.err(lostDeliveriesNote(forwarding.forwarder.pending, c));
      else out.err(waitingNote(out, forwarding, invokedAs(), opts.config, flags));
    });
    parts.use(forwarding);
  }
  const router = createRouter(endpoints);
  const live = plan.ui === false ? undefined : createLiveFeed();
  const run = newRunNonce(); // the probe answers it; doctor matches it with dev.lock's
  const listening = parts.use(
    await startListener({
      endpoints,
      router,
      sink: sinkFor({
        writer: store.writer,
        onStored: live?.publish,
        notes: control.notes,
        wrap: plan.hub?.order.wrap,
      })
        .sink,
      forward: forwarding,
      hostname: opts.host,
      port: plan.port,
      stack: plan.stack,
      server: config.server,
      onOutcome: inHubOrder(
        plan.hub?.order,
        recordingUnmatched(
          unmatched,
          outcomePrinter(out, opts, config.endpoints, () => router.endpoints, () => stopping),
        ),
      ),
      onError: (error) => out.err(c.red(`error: ${describeError(error)}\n`)),
      onNotice,
      probe: run,
      headerCheck: true,
      onDrain: (inFlight, relaying) => out.err(drainNote(inFlight, relaying, c)),
      onCutOff: (cutOff) => out.err(cutOffNote(cutOff, c)),
    }),
  );
  const owner: LockOwner = {
    pid: Deno.pid,
    port: listening.port,
    startedAt: new Date().toISOString(),
    run,
    ...(opts.config !== undefined ? { config: opts.config } : {}),
  };
  // The targets it sends to now, rewritten after each reload: replay leaves dev only the events it sends.
  const describe = (names: readonly string[]) =>
    store.describe({ ...owner, targets: targetNames(forwarding, names) });
  await describe(config.endpoints.map((e) => e.name));
  // Requests the hub passes in are not the listener's: counted here, a replaced config's worker waits for them.
  let fromHub = 0;
  const hubHandle: Handler = async (request, info) => {
    fromHub++;
    try {
      return await listening.handle(request, info);
    } finally {
      fromHub--;
    }
  };
  const hub = plan.hub && parts.use(await startHub(plan.hub, hubHandle, paths, out));
  const inspector = plan.ui === false
    ? undefined
    : parts.use(startInspectorPart(plan, plan.ui, listening.port, live, forwarding));
  if (inspector) {
    forwarding?.guardInspector(inspector.inspector.port);
    owner.inspector = inspector.inspector.port; // `hooktap ui` finding its port taken says whose it is
    await describe(config.endpoints.map((e) => e.name));
  }
  // The live parts (config watch, ready object) start before the banner: a script that edits the config as
  // soon as it sees the banner must not beat the watch.
  parts.use(
    await startLive({
      session: {
        hostname: listening.hostname,
        port: listening.port,
        router: keys.trusting(router),
        forwarding,
        get inFlight() {
          return listening.inFlight + fromHub;
        },
      },
      config,
      generations: plan.generations,
      output: out,
      dataDir: paths.dir,
      json: opts.json ?? false,
      portFromFlag: opts.port !== undefined,
      configArg: opts.config,
      forwardTo: plan.fallback !== undefined,
      readyFile: plan.readyFile,
      inspector: inspector?.inspector.openUrl ?? null,
      onTargets: (names) => {
        describe(names).catch((e) => out.err(c.red(`error: ${describeError(e)}\n`)));
      },
    }),
  );
  return { store, listening, forwarding, hub, inspector };
}

/** The names of the targets `forwarding` sends to, per endpoint of `endpoints` that forwards. */
function targetNames(
  forwarding: ForwardingSession | undefined,
  endpoints: readonly string[],
): Record<string, string[]> {
  const names: Record<string, string[]> = Object.create(null);
  for (const endpoint of endpoints) {
    const list = forwarding?.targetsOf(endpoint) ?? [];
    if (list.length > 0) names[endpoint] = list.map((t) => t.name);
  }
  return names;
}

/** `onOutcome`, a hub batch's outcomes (lines, unmatched log) given in the hub's order. */
function inHubOrder(
  order: HubOrder | undefined,
  onOutcome: (outcome: RequestOutcome) => void,
): (outcome: RequestOutcome) => void {
  return order === undefined ? onOutcome : order.inOrder(onOutcome);
}

/** Prints each request (the activity log) and the moments writes fail and work again. */
function outcomePrinter(
  out: Output,
  opts: { json?: boolean | undefined; quiet?: boolean | undefined },
  endpoints: readonly Endpoint[],
  endpointsNow: () => readonly Endpoint[],
  storeLost: () => boolean,
): (outcome: RequestOutcome) => void {
  const c = out.errColors;
  let lastFailure = "";
  const activity = opts.quiet
    ? undefined
    : createActivityLog(out, { json: opts.json ?? false, endpoints, endpointsNow });
  return (o) => {
    activity?.(o);
    if (o.cutOff || storeLost()) return; // a store that is not dev's any more: dev stops, and says why
    if (o.status === 503 && o.reason !== lastFailure) {
      lastFailure = o.reason ?? "";
      out.err(c.red(`error: cannot save events: ${lastFailure}. Answering 503 until writes work again.\n`));
    } else if (o.status === 200 && lastFailure !== "") {
      lastFailure = "";
      out.err(c.green("Writes work again; events are being saved.\n"));
    }
  };
}

/** Connects to the hub channel (`--hub`); disposing stops after the batch in hand is stored and acknowledged. */
async function startHub(
  hub: NonNullable<DevPlan["hub"]>,
  handle: Handler,
  paths: StorePaths,
  out: Output,
): Promise<HubClient & AsyncDisposable> {
  const c = out.errColors;
  let last: HubState | undefined;
  const client = await connectHub({
    url: hub.url,
    token: hub.token,
    tokenSource: hub.tokenSource,
    handle,
    order: hub.order,
    paths,
    ...(hub.clientName === undefined ? {} : { clientName: hub.clientName }),
    onGap: (gap) => out.err(hubGapLine(gap, c)),
    onRewound: (rewound) => out.err(hubRewoundLine(rewound, c)),
    onRefused: (refused) => out.err(hubRefusedLine(refused, c)),
    onSkipped: (skipped) => out.err(hubSkippedLine(skipped, c)),
    onState: (state) => {
      const line = hubChange(last, state, c);
      if (line !== undefined) out.err(line);
      last = state;
    },
  });
  return Object.assign(client, { [Symbol.asyncDispose]: () => client.stop() });
}

/** Starts the inspector (its own loopback port: `--ui-port`, else the receiver's + 1 or the next free one). */
function startInspectorPart(
  plan: DevPlan,
  ui: { port: number | null },
  receiverPort: number,
  live: LiveFeed | undefined,
  forwarding: ForwardingSession | undefined,
): Launched & AsyncDisposable {
  // The inspector never takes a port hooktap forwards to: the app there may start after dev.
  const skip = new Map<number, string>();
  for (const target of forwarding?.targets.values() ?? []) {
    const port = localPort(target.to);
    if (port !== undefined && !skip.has(port)) skip.set(port, target.to);
  }
  const taken = ui.port === null ? undefined : skip.get(ui.port);
  if (taken !== undefined) {
    throw new UsageError(loopProblem(taken, { hostname: "127.0.0.1", port: ui.port!, what: "inspector" })!);
  }
  const launched = launchInspector({
    paths: plan.paths,
    port: ui.port ?? receiverPort + 1,
    explicit: ui.port !== null,
    skip,
    endpoints: plan.config.endpoints,
    resign: resignerFor(plan.config.endpoints),
    ...(live ? { live } : {}),
  });
  return Object.assign(launched, { [Symbol.asyncDispose]: () => launched.inspector.stop() });
}

/** The banner, the hub's state and the forwarding report. */
function printBanner(ctx: CommandContext, plan: DevPlan, parts: DevParts, eventsFile: string): void {
  const { config, opts } = plan;
  const { listening, hub, inspector } = parts;
  const out = ctx.output;
  out.err(
    banner({
      hostname: listening.hostname,
      port: listening.port,
      endpoints: config.endpoints,
      eventsFile,
      configFile: config.file === null ? null : pathInside(ctx.cwd, config.file) || config.file,
      repairedBytes: parts.store.writer.repairedBytes,
      stack: { name: listening.stack, reason: listening.stackReason },
      ...(inspector
        ? {
          inspector: { url: inspector.inspector.openUrl, ...inspector.note ? { note: inspector.note } : {} },
        }
        : {}),
      hub: hub !== undefined,
    }, out) + "\n" + (hub ? hubLine(hub.state, out.errColors) : ""),
  );
  if (parts.forwarding) {
    const replaced = plan.fallback === undefined
      ? 0
      : config.endpoints.reduce((n, e) => n + (e.targets?.length ?? (e.forward ? 1 : 0)), 0);
    reportForwarding(out, parts.forwarding, {
      deliverPending: !opts.skipPending,
      replaced,
      runner: invokedAs(),
      endpoints: config.endpoints.map((e) => e.name),
      ...(opts.config !== undefined ? { config: opts.config } : {}),
    });
  }
}
