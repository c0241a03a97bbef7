/**
 * `hooktap dev`: the receiver. Finds the config (or asks for one), starts a
 * dev session (src/dev/session.ts), prints its banner and activity, and
 * stops it on Ctrl-C or SIGTERM.
 * @module
 */
import { basename, dirname, relative, resolve } from "node:path";
import { loadConfig, starterConfig } from "../../config/load.ts";
import { configFromAnswers } from "../../config/starter.ts";
import { CONFIG_FILE_NAME, type ResolvedConfig } from "../../config/types.ts";
import { validateConfig } from "../../config/validate.ts";
import { writeConfigFile } from "../../config/write.ts";
import { startLive } from "../../dev/live.ts";
import { startDevSession } from "../../dev/session.ts";
import { forwardFlag, forwardingCallbacks, reportForwarding, waitingNote } from "../../dev/forward.ts";
import { launchInspector } from "../../inspector/launch.ts";
import { createLiveFeed } from "../../inspector/live.ts";
import { resignerFor } from "../../send/resigner.ts";
import { resendNeedsResign } from "../../send/session.ts";
import { describeError, UsageError } from "../../errors.ts";
import { connectHub, type HubClient, parseChannelUrl } from "../../hub/client.ts";
import type { HubState } from "../../hub/cursor_file.ts";
import { createHubOrder } from "../../hub/order.ts";
import { hubChange, hubGapLine, hubLine, hubRefusedLine } from "../../term/hub_line.ts";
import { banner, createActivityLog } from "../../term/dev_log.ts";
import type { Endpoint } from "../../config/types.ts";
import { cutOffNote, drainNote } from "../../term/drain_note.ts";
import { retentionLine } from "../../term/retention_line.ts";
import { safeLine } from "../../term/sanitize.ts";
import { plural } from "../../term/format.ts";
import { askStarterAnswers, whyNoPrompt } from "../../term/prompts.ts";
import type { options } from "./command.ts";
import type { Input } from "../../cli/spec.ts";
import { type CommandContext, parsePort, storeOf, uiPlan } from "../_shared/context.ts";

const STACK_ENV = "HOOKTAP_STACK";
const HUB_TOKEN_ENV = "HOOKTAP_HUB_TOKEN";

/** The hub channel and token from the flags, the environment and the config, or `undefined` (no hub). */
function hubPlan(
  opts: { hub?: string | undefined; hubToken?: string | undefined },
  config: ResolvedConfig,
): { url: string; token: string } | undefined {
  const url = opts.hub ?? config.hub?.url;
  if (url === undefined) {
    if (opts.hubToken !== undefined) {
      throw new UsageError("--hub-token needs --hub (or hub.url in the config).");
    }
    return undefined;
  }
  const env = Deno.permissions.querySync({ name: "env", variable: HUB_TOKEN_ENV }).state === "granted"
    ? Deno.env.get(HUB_TOKEN_ENV) || undefined
    : undefined;
  const token = opts.hubToken ?? env ?? config.hub?.token;
  if (token === undefined) {
    throw new UsageError(
      `The hub channel ${url} needs its token: --hub-token, ${HUB_TOKEN_ENV}, or hub.token in the config.`,
    );
  }
  parseChannelUrl(url); // a clear error for a URL that is not a channel's
  return { url, token };
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
  const name = [host.split(".")[0], basename(cwd)].filter((p) => p !== undefined && p !== "").join("-")
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

async function configForDev(ctx: CommandContext, path: string | undefined): Promise<ResolvedConfig> {
  const config = await loadConfig({ cwd: ctx.cwd, path });
  if (config !== null) return config;
  const c = ctx.output.errColors;
  const file = resolve(ctx.cwd, CONFIG_FILE_NAME);
  const why = whyNoPrompt(file);
  if (why === undefined) {
    const answers = await askStarterAnswers("No hooktap.config.ts here yet: let's write one.");
    await writeConfigFile(file, answers);
    return validateConfig(configFromAnswers(answers), file);
  }
  ctx.output.err(
    c.yellow(`No hooktap.config.ts here and ${why}: using the built-in starter config `) +
      '(port 8787, POST /webhook as "default"). Nothing was written; `hooktap init --yes` writes it.\n',
  );
  return starterConfig();
}

/** `hooktap dev`. */
export async function run(ctx: CommandContext, input: Input<typeof options>): Promise<void> {
  const opts = input.options;
  const out = ctx.output;
  const c = out.errColors;
  const port = opts.port === undefined ? undefined : parsePort(opts.port); // a usage error before anything else
  const stack = stackOverride();
  const fallback = forwardFlag(opts.forwardTo, opts.forwardMode, opts.forwardEvents); // usage errors first
  const config = await configForDev(ctx, opts.config);
  for (const warning of config.warnings) out.err(c.yellow(`warning: ${warning}\n`));
  if (!LOOPBACK.test(opts.host)) {
    out.err(
      c.yellow(
        `warning: binding ${opts.host}: anyone who can reach this machine on port ${
          port ?? config.port
        } can send events to hooktap and see its answers. Use the default 127.0.0.1 unless you mean it.\n`,
      ),
    );
  }
  const ui = uiPlan(opts, config, port ?? config.port); // a usage error before anything else
  const hubChannel = hubPlan(opts, config); // a usage error before anything else
  if (opts.hubClient !== undefined && hubChannel === undefined) {
    throw new UsageError("--hub-client needs --hub (or hub.url in the config).");
  }
  const hubClient = hubChannel ? hubClientName(opts.hubClient, ctx.cwd) : undefined;
  const hubOrder = hubChannel ? createHubOrder() : undefined;
  const paths = storeOf(ctx);
  const live = ui === false ? undefined : createLiveFeed();
  let lastFailure = "";
  const activity = opts.quiet ? undefined : createActivityLog(out, {
    json: opts.json ?? false,
    endpoints: config.endpoints,
    endpointsNow: () => serving.session?.router.endpoints ?? config.endpoints,
  });
  const serving: { session?: { router: { endpoints: readonly Endpoint[] } } } = {}; // the 404 hint follows reloads
  const session = await startDevSession({
    config,
    paths,
    hostname: opts.host,
    port: port ?? config.port,
    onOutcome: (o) => {
      activity?.(o);
      if (o.cutOff) return;
      if (o.status === 503 && o.reason !== lastFailure) {
        lastFailure = o.reason ?? "";
        out.err(
          c.red(`error: cannot save events: ${lastFailure}. Answering 503 until writes work again.\n`),
        );
      } else if (o.status === 200 && lastFailure !== "") {
        lastFailure = "";
        out.err(c.green("Writes work again; events are being saved.\n"));
      }
    },
    onError: (error) => out.err(c.red(`error: ${describeError(error)}\n`)),
    onNotice: (message) => out.err(`${safeLine(message)}\n`),
    forward: {
      ...(fallback ? { fallback } : {}),
      ...(config.file ? { baseDir: dirname(config.file) } : {}),
      ...forwardingCallbacks(out, {
        json: opts.json ?? false,
        quiet: opts.quiet ?? false,
        resignsOf: (name) => resendNeedsResign(config.endpoints.find((e) => e.name === name)),
      }),
    },
    stack,
    ...(live ? { onStored: live.publish } : {}),
    onRetention: (r) => out.err(retentionLine(r, c)),
    ...(hubOrder ? { wrapSink: hubOrder.wrap } : {}),
  });
  serving.session = session;
  let hub: HubClient | undefined;
  if (hubChannel && hubOrder) {
    let last: HubState | undefined;
    try {
      hub = await connectHub({
        ...hubChannel,
        handle: session.handle,
        order: hubOrder,
        paths,
        ...(hubClient === undefined ? {} : { clientName: hubClient }),
        onGap: (gap) => out.err(hubGapLine(gap, c)),
        onRefused: (refused) => out.err(hubRefusedLine(refused, c)),
        onState: (state) => {
          const line = hubChange(last, state, c);
          if (line !== undefined) out.err(line);
          last = state;
        },
      });
    } catch (error) {
      await session.stop();
      await session.finished;
      throw error;
    }
  }
  let inspector;
  try {
    inspector = ui === false ? undefined : launchInspector({
      paths,
      port: ui.port ?? session.port + 1,
      explicit: ui.port !== null,
      endpoints: config.endpoints,
      resign: resignerFor(config.endpoints),
      ...(live ? { live } : {}),
    });
  } catch (error) {
    await hub?.stop();
    await session.stop();
    await session.finished;
    throw error;
  }
  const eventsFile = relative(ctx.cwd, paths.events) || paths.events;
  out.err(
    banner({
      hostname: session.hostname,
      port: session.port,
      endpoints: config.endpoints,
      eventsFile,
      configFile: config.file === null ? null : relative(ctx.cwd, config.file) || config.file,
      repairedBytes: session.repairedBytes,
      stack: { name: session.stack, reason: session.stackReason },
      ...(inspector
        ? { inspector: { url: inspector.inspector.url, ...inspector.note ? { note: inspector.note } : {} } }
        : {}),
      hub: hub !== undefined,
    }, out) + "\n" + (hub ? hubLine(hub.state, c) : ""),
  );
  let running: { stop(): void } | undefined;
  try {
    running = await startLive({
      session,
      config,
      output: out,
      dataDir: paths.dir,
      json: opts.json ?? false,
      readyFile: opts.readyFile === undefined ? undefined : resolve(ctx.cwd, opts.readyFile),
      inspector: inspector?.inspector.url ?? null,
    });
  } catch (error) {
    await hub?.stop();
    await inspector?.inspector.stop();
    await session.stop();
    await session.finished;
    throw error;
  }
  if (session.forwarding) {
    const replaced = fallback === undefined
      ? 0
      : config.endpoints.reduce((n, e) => n + (e.targets?.length ?? (e.forward ? 1 : 0)), 0);
    reportForwarding(out, session.forwarding, { deliverPending: !opts.skipPending, replaced });
  }
  const stop = async () => {
    running?.stop();
    await hub?.stop();
    if (session.inFlight > 0) out.err(drainNote(session.inFlight, c));
    const cutOff = await session.stop();
    if (cutOff > 0) out.err(cutOffNote(cutOff, c));
    out.err(waitingNote(out, session.forwarding));
  };
  if (ctx.signal.aborted) stop();
  ctx.signal.addEventListener("abort", stop, { once: true });
  const captured = await session.finished;
  running.stop();
  await inspector?.inspector.stop();
  out.err(`\nStopped. ${plural(captured, "event")} captured this session, in ${eventsFile}.\n`);
}
