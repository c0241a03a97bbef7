/**
 * The live side of a running `hooktap dev`, beside its session: the ready
 * object (`--json`, `--ready-file`), config hot reload into the session's
 * router, and a quiet poll for tunnels. Returns a disposable that ends the
 * watch and the poll.
 * @module
 */
import { dirnameOf } from "../text/path.ts";
import { diffConfigs } from "../config/diff.ts";
import { watchConfig } from "../config/reload.ts";
import { openConfig } from "../config/generation.ts";
import type { ConfigGenerations } from "./config_generations.ts";
import { watchConfigImports } from "./config_imports.ts";
import { writeUserFile } from "../store/write/user_file.ts";
import type { Endpoint, ResolvedConfig } from "../config/types.ts";
import type { ConfigGeneration } from "../config/generation.ts";
import type { DevSession } from "./session.ts";
import { describeError, HooktapError, UsageError } from "../errors.ts";
import { detectTunnels, probeOptionsFromEnv, type Tunnel } from "../tunnel/detect.ts";
import type { Output } from "../term/output.ts";
import { readyInfo } from "../term/ready.ts";
import {
  type ForwardEdit,
  forwardReloadText,
  type OtherChanges,
  reloadedText,
  reloadFailedText,
  targetChangesText,
} from "../term/reload_view.ts";
import { tunnelText } from "../term/tunnel_view.ts";

/** Options of {@linkcode startLive}. */
export interface LiveOptions {
  session: DevSession;
  config: ResolvedConfig;
  /**
   * The run's config generations (the first is `config`'s): each reload's is adopted, and the replaced ones
   * retire once dev accepted it. The caller disposes of them after its receiver drained.
   */
  generations: ConfigGenerations;
  output: Output;
  /** Absolute path of the data directory. */
  dataDir: string;
  /** Print the ready object on stdout first (`--json`). */
  json: boolean;
  /** Write the ready object here, atomically (`--ready-file`). */
  readyFile?: string | undefined;
  /** `--port` chose the port: a change of the config's port does not apply (nor to a restart with it). */
  portFromFlag?: boolean;
  /** `--forward-to` replaces the config's forward targets for this run: a config edit of them does not apply. */
  forwardTo?: boolean;
  /** The run's `--config`, as given (the restart commands it suggests start the same config). */
  configArg?: string | undefined;
  /** The live inspector's URL, when it runs (in the ready object). */
  inspector?: string | null;
  /**
   * Seconds between tunnel probes; 0 turns them off.
   * @default 3
   */
  tunnelPollSeconds?: number;
  /**
   * Called once a reload's forward targets are running, with the names of its endpoints (dev writes the
   * targets into its lock for `replay`).
   */
  onTargets?: (endpoints: string[]) => void;
}

async function writeAtomic(path: string, text: string, dataDir: string): Promise<void> {
  try {
    // An exclusive temp file with an unpredictable name, renamed over the path: never through a link (in
    // place when Deno may write only the path itself); never in the data directory or onto a file of it.
    await writeUserFile(path, text, dataDir, "--ready-file");
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new HooktapError(
      `Cannot write the ready file ${path}: ${describeError(error)}. ` +
        `Check that ${dirnameOf(path)} exists and that Deno may write there (--allow-write=${path}).`,
      { cause: error },
    );
  }
}

/** An endpoint's forward targets as configured, comparable as text (`""`: it does not forward). */
const forwardKey = (e: Endpoint) => {
  const list = e.targets ?? (e.forward !== undefined ? [e.forward] : []);
  return list.length === 0 ? "" : JSON.stringify(list);
};

/** The endpoints whose `forward` an edit changed, and those that forward after it. */
function forwardEdit(before: readonly Endpoint[], after: readonly Endpoint[]): ForwardEdit {
  const was = new Map(before.map((e) => [e.name, forwardKey(e)]));
  return {
    changed: after.filter((e) => forwardKey(e) !== (was.get(e.name) ?? "")).map((e) => e.name),
    forwarding: after.filter((e) => forwardKey(e) !== "").map((e) => e.name),
  };
}

/** A setting as comparable text (a function by its source: a custom `response` may be one). */
const settingText = (value: unknown) =>
  JSON.stringify(value, (_, v) => typeof v === "function" ? `fn:${String(v)}` : v) ?? "";

/**
 * What a reload changed beside the routes: endpoints' `signing` and `response` (the router's update applies
 * them), and the top-level settings dev reads only at start that now differ from those it `started` with.
 */
function otherChanges(before: ResolvedConfig, after: ResolvedConfig, started: ResolvedConfig): OtherChanges {
  const was = new Map(before.endpoints.map((e) => [e.name, e]));
  const settings = after.endpoints.flatMap((endpoint) => {
    const old = was.get(endpoint.name);
    if (old === undefined) return [];
    const fields = (["signing", "response"] as const).filter((f) =>
      settingText(old[f]) !== settingText(endpoint[f])
    );
    // The same function text, loaded anew with what it imports: its answer may differ all the same.
    const reloaded = !fields.includes("response") && typeof endpoint.response === "function";
    return fields.length === 0 && !reloaded ? [] : [{ endpoint, fields, reloaded }];
  });
  // Against what dev started with, which still runs: an edit back to it is no change.
  const atStart = (["retention", "ui", "server", "hub"] as const).filter((f) =>
    settingText(started[f]) !== settingText(after[f])
  );
  return { settings, atStart };
}

/** Starts the live parts; the ready object is out (and its file written) when this resolves. */
export async function startLive(options: LiveOptions): Promise<AsyncDisposable> {
  const { session, output } = options;
  const c = output.errColors;
  let current = options.config;
  const ready = () =>
    readyInfo({
      hostname: session.hostname,
      port: session.port,
      endpoints: current.endpoints,
      dataDir: options.dataDir,
      inspector: options.inspector ?? null,
    });
  if (options.json) {
    try {
      output.out(JSON.stringify(ready()) + "\n");
    } catch {
      /* stdout already closed (`dev --json | jq`, jq gone): receiving goes on; the activity log warns */
    }
  }
  const readyFile = options.readyFile;
  if (readyFile !== undefined) await writeAtomic(readyFile, JSON.stringify(ready()) + "\n", options.dataDir);

  const onConfig = (generation: ConfigGeneration) => {
    const next = generation.config;
    options.generations.adopt(generation);
    const changes = diffConfigs(current, next);
    const other = otherChanges(current, next, options.config);
    // Every reload that loads: an endpoint's secret or response may have changed with its route unchanged.
    session.router.update(next.endpoints);
    // The router serves `next` from now on, so the generations it replaced retire (once no request is in
    // flight) after forwarding took or refused its targets: a refusal keeps the running targets, not the
    // replaced configs' workers, which no request reaches any more (each refused edit kept one more running).
    const accept = () => options.generations.accept(generation, () => session.inFlight ?? 0);
    if (session.forwarding === undefined) accept();
    session.forwarding?.update(next.endpoints).then(
      (targets) => {
        accept();
        options.onTargets?.(next.endpoints.map((e) => e.name));
        const text = targetChangesText(
          targets,
          c,
          options.configArg,
          (name) => next.endpoints.find((e) => e.name === name)?.targets ?? [],
        );
        if (text !== "") output.err(text);
      },
      (error) => {
        accept();
        output.err(c.red(`error: ${describeError(error)}; keeping the running forward targets.\n`));
      },
    );
    const forwardNote = forwardReloadText(
      forwardEdit(current.endpoints, next.endpoints),
      {
        running: session.forwarding !== undefined,
        forwardTo: options.forwardTo ?? false,
        config: options.configArg,
      },
      c,
    );
    current = { ...next, port: current.port };
    output.err(
      reloadedText(changes, c, {
        port: session.port,
        fromFlag: options.portFromFlag ?? false,
        config: options.configArg,
      }, other),
    );
    if (forwardNote !== "") output.err(forwardNote);
    for (const warning of next.warnings) output.err(c.yellow(`warning: ${warning}\n`));
    if (readyFile !== undefined) {
      writeAtomic(readyFile, JSON.stringify(ready()) + "\n", options.dataDir).catch((e) =>
        output.err(c.red(`error: ${describeError(e)}\n`))
      );
    }
    void imports?.refresh(); // the edit may import other modules now
  };
  const onError = (error: unknown) => output.err(reloadFailedText(error, c));
  const file = current.file;
  const watch = file === null ? undefined : watchConfig({ file, onConfig, onError });
  // An edit of a module the config imports reloads the config too (the config is imported afresh).
  const imports = file === null ? undefined : watchConfigImports(file, (module) =>
    watchConfig({
      file: module,
      onConfig,
      onError,
      load: (_, token) => openConfig({ path: file, cacheBust: token }),
    }));
  await imports?.refresh();

  const every = options.tunnelPollSeconds ?? 3;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  let seen = "[]";
  const probe = async () => {
    let tunnels: Tunnel[] = [];
    try {
      tunnels = await detectTunnels(probeOptionsFromEnv());
    } catch { /* no network permission: no tunnel lines */ }
    if (stopped) return;
    const key = JSON.stringify(tunnels);
    if (key !== seen) {
      seen = key;
      output.err(tunnelText(tunnels, current.endpoints, session.port, c));
    }
    timer = setTimeout(probe, every * 1000);
  };
  if (every > 0) probe();
  return {
    [Symbol.asyncDispose]() {
      stopped = true;
      clearTimeout(timer);
      watch?.close();
      imports?.close();
      return Promise.resolve();
    },
  };
}
