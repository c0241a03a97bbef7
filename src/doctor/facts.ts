/**
 * What `hooktap doctor` looks at, gathered once: the config, the writer
 * lock of `.hooktap` (held means a `dev` runs for this directory: the
 * kernel drops the lock when its process dies), a probe of the port, the
 * tunnels' local APIs, the unmatched log and each endpoint's newest event.
 * The endpoints checked are the running dev's (asked through the probe with
 * the run's nonce from `dev.lock`), else the config's, else (no config: what
 * dev would start on) the starter's. The checks themselves are pure (checks.ts).
 * @module
 */
import { loadConfig } from "../config/load.ts";
import { CONFIG_FILE_NAME, type Endpoint, type ResolvedConfig } from "../config/types.ts";
import { describeError } from "../errors.ts";
import { PROBE_HEADER, PROBE_PATH, PROBE_RUN_HEADER, type ProbeAnswer } from "../receiver/probe.ts";
import { latestOfEndpoint } from "../store/read/latest.ts";
import { openStoreReader } from "../store/read/reader.ts";
import { readUnmatched } from "../store/read/unmatched.ts";
import type { StorePaths } from "../store/paths.ts";
import type { LockOwner } from "../store/write/lock.ts";
import type { UnmatchedEntry } from "../store/write/unmatched.ts";
import { type HubState, readHubState } from "../hub/cursor_file.ts";
import { detectTunnels, probeOptionsFromEnv, type Tunnel } from "../tunnel/detect.ts";
import { invokedAs } from "../text/command_line.ts";
import { configWords } from "../text/config_words.ts";
import { resolvePath } from "../text/path.ts";
import { connectTcp } from "../send/http1.ts";

/** The config as doctor found it. */
export type ConfigFact =
  | { state: "ok"; config: ResolvedConfig }
  | { state: "missing" }
  | {
    state: "error";
    message: string;
    issues: readonly string[];
    /** The file given (`--config`, or the running dev's) does not exist. */
    absent?: boolean;
  };

/** A forward target events wait for (counted by the delivery-state model, given by the caller). */
export interface WaitingTarget {
  endpoint: string;
  /** The target's name. */
  target: string;
  /** Its URL (as configured: `:name` parameters unfilled). */
  url: string;
  /** Events waiting for it. */
  count: number;
  /**
   * Whether the config doctor checks forwards this endpoint to this target (a `dev` started on it delivers
   * them at start, src/send/resume_scan.ts): `false` for events marked for a target it lacks (an earlier
   * `dev --forward-to URL`, a target renamed or removed), which such a dev keeps waiting.
   */
  forwarded: boolean;
  /** Whether that config has the event's endpoint at all. */
  hasEndpoint: boolean;
}

/** Events whose every delivery attempt to a forward target failed (given up), of one endpoint. */
export interface GivenUpFact {
  endpoint: string;
  /** Events given up on (still stored). */
  count: number;
  /** Whether sending them again needs `--resign` (src/send/session.ts `resendNeedsResign`). */
  resign: boolean;
}

/** A {@linkcode WaitingTarget} and whether something listens at its host and port now. */
export interface ForwardFact extends WaitingTarget {
  listening: boolean;
  /** Why not, when nothing listens. */
  error?: string;
}

/** Everything the checks need. */
export interface DoctorFacts {
  now: Date;
  config: ConfigFact;
  /**
   * Where the config came from: `--config` (`option`), the running dev's `--config` (`running`: doctor was
   * given none), or the default hooktap.config.ts (`default`).
   */
  configFrom?: "option" | "running" | "default";
  /**
   * When dev runs: whether the config checked is the file it watches (a `--config` naming another file is
   * not: saving that one reloads nothing).
   */
  devWatches?: boolean;
  /** How the user runs hooktap and the `--config FILE` words, for the commands the fixes suggest. */
  command?: { runner: string; config: readonly string[] };
  /** `running` when the writer lock is held. */
  dev: { running: false } | { running: true; owner?: LockOwner };
  /** The port looked at: the running dev's, else the config's. */
  port?: number;
  /** What the port said to the probe; absent when no port was known. */
  probe?: { state: "hooktap"; run: string } | { state: "other"; status: number } | {
    state: "closed";
    error: string;
  };
  tunnels: Tunnel[];
  /** What `dev --hub` last wrote to .hooktap/hub.json (`null`: no hub used here). */
  hub: HubState | null;
  /** Unmatched requests of the window. */
  unmatched: UnmatchedEntry[];
  /**
   * The endpoints the checks look at, and where they come from: the running dev (what senders reach now,
   * even when the config no longer loads), the config, the starter config (no config: dev starts on it),
   * or none (the config does not load and no dev runs).
   */
  endpoints: { from: "running" | "config" | "starter" | "none"; list: readonly Endpoint[] };
  /** Endpoint name → `receivedAt` of its newest event (absent: none). */
  latest: Record<string, string>;
  /** Hours the "recent" checks look back. */
  windowHours: number;
  /** The forward targets events wait for (`[]`: none, or not asked). */
  forward: ForwardFact[];
  /** Events given up on, per endpoint (absent or `[]`: none, or not asked). */
  givenUp?: GivenUpFact[];
}

/** Options of {@linkcode gatherFacts}. */
export interface GatherOptions {
  cwd: string;
  paths: StorePaths;
  configPath?: string | undefined;
  /** @default globalThis.fetch */
  fetch?: typeof globalThis.fetch;
  /** @default detectTunnels with the probe addresses from the environment */
  detect?: () => Promise<Tunnel[]>;
  /** @default 24 */
  windowHours?: number;
  /** The endpoints dev starts on without a config (the starter's). */
  starter?: readonly Endpoint[];
  /** @default () => new Date() */
  now?: () => Date;
  /** @default invokedAs() */
  runner?: string;
  /**
   * The forward targets events wait for, given the config (the delivery model is the send engine's, which
   * doctor does not import).
   * @default none asked
   */
  waiting?: (config: ResolvedConfig | null) => Promise<WaitingTarget[]>;
  /** The events given up on, given the config. @default none asked */
  givenUp?: (config: ResolvedConfig | null) => Promise<GivenUpFact[]>;
}

async function readOwner(paths: StorePaths): Promise<LockOwner | undefined> {
  try {
    return JSON.parse(await Deno.readTextFile(paths.lock)) as LockOwner;
  } catch {
    return undefined;
  }
}

/** Whether the writer lock is held; `unknown` when Deno may not open it for writing (no --allow-write=.hooktap). */
async function lockState(paths: StorePaths): Promise<"held" | "free" | "unknown"> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(paths.lock, { read: true, write: true });
  } catch (error) {
    return error instanceof Deno.errors.NotFound ? "free" : "unknown";
  }
  try {
    if (await file.tryLock(true)) {
      file.unlockSync();
      return "free";
    }
    return "held";
  } finally {
    file.close();
  }
}

async function probePort(fetcher: typeof fetch, port: number): Promise<NonNullable<DoctorFacts["probe"]>> {
  try {
    const response = await fetcher(`http://127.0.0.1:${port}${PROBE_PATH}`, {
      headers: { [PROBE_HEADER]: "1" },
      signal: AbortSignal.timeout(2000),
    });
    const text = await response.text();
    try {
      const body = JSON.parse(text) as { hooktap?: unknown; run?: unknown };
      if (body.hooktap === true && typeof body.run === "string") return { state: "hooktap", run: body.run };
    } catch { /* not hooktap's answer */ }
    return { state: "other", status: response.status };
  } catch (error) {
    return { state: "closed", error: describeError(error) };
  }
}

/** The running dev's endpoints, asked with its run's nonce (`undefined` when it does not say). */
async function runningEndpoints(
  fetcher: typeof fetch,
  port: number,
  run: string,
): Promise<Endpoint[] | undefined> {
  try {
    const response = await fetcher(`http://127.0.0.1:${port}${PROBE_PATH}`, {
      headers: { [PROBE_HEADER]: "endpoints", [PROBE_RUN_HEADER]: run },
      signal: AbortSignal.timeout(2000),
    });
    const body = await response.json() as ProbeAnswer;
    if (body.run !== run || !Array.isArray(body.endpoints)) return undefined;
    return body.endpoints.filter((e) =>
      typeof e?.name === "string" && typeof e.path === "string" && Array.isArray(e.methods)
    ).map((e) => ({ name: e.name, path: e.path, methods: e.methods.map(String), maxBodySize: 0 }));
  } catch {
    return undefined;
  }
}

/** Whether something accepts a TCP connection at `url`'s host and port (2 s at most). */
async function probeTarget(url: string): Promise<{ listening: boolean; error?: string }> {
  let hostname: string;
  let port: number;
  try {
    const u = new URL(url.replace(/\/:[^/]*/g, "/x")); // `:name` parameters do not change the host
    hostname = u.hostname.replace(/^\[(.*)\]$/, "$1");
    port = Number(u.port || (u.protocol === "https:" ? 443 : 80));
  } catch {
    return { listening: true }; // not a URL to probe: nothing to say
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((r) => (timer = setTimeout(() => r("timeout"), 2000)));
  const connecting = connectTcp(hostname, port);
  try {
    const conn = await Promise.race([connecting, timeout]);
    if (conn === "timeout") {
      connecting.then((c) => c.close(), () => {});
      return { listening: false, error: "no answer within 2 s" };
    }
    conn.close();
    return { listening: true };
  } catch (error) {
    return { listening: false, error: describeError(error) };
  } finally {
    clearTimeout(timer);
  }
}

/** Gathers the facts (reads files, probes loopback ports; writes nothing). */
export async function gatherFacts(options: GatherOptions): Promise<DoctorFacts> {
  const now = (options.now ?? (() => new Date()))();
  const windowHours = options.windowHours ?? 24;
  const fetcher = options.fetch ?? globalThis.fetch;
  const lock = await lockState(options.paths);
  const owner = lock === "free" ? undefined : await readOwner(options.paths);
  // No --config: the config the dev running here started with (its lock says), when it named one.
  const fromDev = options.configPath === undefined && lock !== "free" && typeof owner?.config === "string"
    ? owner.config
    : undefined;
  const configPath = options.configPath ?? fromDev;
  let config: ConfigFact;
  try {
    const loaded = await loadConfig({ cwd: options.cwd, path: configPath });
    config = loaded === null ? { state: "missing" } : { state: "ok", config: loaded };
  } catch (error) {
    const absent = configPath !== undefined &&
      await Deno.lstat(resolvePath(options.cwd, configPath)).then(
        () => false,
        (e) => e instanceof Deno.errors.NotFound,
      );
    config = {
      state: "error",
      message: describeError(error),
      issues: absent ? [] : (error as { issues?: string[] }).issues ?? [],
      ...(absent ? { absent } : {}),
    };
  }
  const port = owner?.port ??
    (config.state === "ok" && config.config.port !== 0 ? config.config.port : undefined);
  const detect = options.detect ?? (() => detectTunnels(probeOptionsFromEnv()));
  const since = new Date(now.getTime() - windowHours * 3600_000);
  const [probe, tunnels, unmatched] = await Promise.all([
    port === undefined ? undefined : probePort(fetcher, port),
    detect().catch(() => []),
    readUnmatched(options.paths, { since }).catch(() => []),
  ]);
  // Without write access to the lock, a probe answered with the run nonce the lock file names shows the same.
  const devRunning = lock === "held" ||
    (lock === "unknown" && owner?.run !== undefined && probe?.state === "hooktap" && probe.run === owner.run);
  const dev: DoctorFacts["dev"] = devRunning
    ? { running: true, ...(owner ? { owner } : {}) }
    : { running: false };
  const running =
    devRunning && port !== undefined && owner?.run !== undefined && probe?.state === "hooktap" &&
      probe.run === owner.run
      ? await runningEndpoints(fetcher, port, owner.run)
      : undefined;
  const endpoints: DoctorFacts["endpoints"] = running !== undefined
    ? { from: "running", list: running }
    : config.state === "ok"
    ? { from: "config", list: config.config.endpoints }
    : config.state === "missing"
    ? { from: "starter", list: options.starter ?? [] }
    : { from: "none", list: [] };
  const latest: Record<string, string> = {};
  if (endpoints.list.length > 0) {
    const reader = await openStoreReader(options.paths).catch(() => null);
    try {
      for (const e of endpoints.list) {
        if (reader === null) break;
        const found = await latestOfEndpoint(reader, e.name);
        if (found.event !== undefined) latest[e.name] = found.event.receivedAt;
      }
    } finally {
      reader?.[Symbol.dispose]();
    }
  }
  const waiting = options.waiting === undefined
    ? []
    : await options.waiting(config.state === "ok" ? config.config : null).catch(() => []);
  const forward = await Promise.all(waiting.map(async (w) => ({ ...w, ...(await probeTarget(w.url)) })));
  const givenUp = options.givenUp === undefined
    ? []
    : await options.givenUp(config.state === "ok" ? config.config : null).catch(() => []);
  return {
    now,
    config,
    configFrom: options.configPath !== undefined ? "option" : fromDev !== undefined ? "running" : "default",
    ...(devRunning
      ? {
        devWatches: resolvePath(options.cwd, configPath ?? CONFIG_FILE_NAME) ===
          resolvePath(options.cwd, owner?.config ?? CONFIG_FILE_NAME),
      }
      : {}),
    command: { runner: options.runner ?? invokedAs(), config: configWords(configPath, options.cwd) },
    dev,
    ...(port === undefined ? {} : { port }),
    ...(probe === undefined ? {} : { probe }),
    tunnels,
    hub: await readHubState(options.paths),
    unmatched,
    endpoints,
    latest,
    windowHours,
    forward,
    ...(givenUp.length > 0 ? { givenUp } : {}),
  };
}
