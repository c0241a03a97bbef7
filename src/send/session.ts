/**
 * Forwarding inside a running `dev`: the targets of each endpoint (each
 * with its rule, compiled), the forwarder, the deliveries log and the
 * watermark, started before the receiver listens and stopped after it has
 * drained. A reload hands it the new endpoints ({@linkcode ForwardingSession.update}).
 * @module
 */
import type { ResolvedForward } from "../config/forward.ts";
import type { Endpoint } from "../config/types.ts";
import type { CapturedEvent } from "../event/record.ts";
import { chooseTargets, compileWhen, type EventTest } from "./choose.ts";
import { UsageError } from "../errors.ts";
import type { StorePaths } from "../store/paths.ts";
import { providerFacts } from "../providers/catalog.ts";
import { closeIdleConnections } from "./client.ts";
import { openDeliveriesLog } from "./deliveries_log.ts";
import {
  createForwarder,
  type Forwarder,
  type ForwarderOptions,
  type Resuming,
  retiredKey,
} from "./forwarder.ts";
import { loopProblem } from "./loop_check.ts";
import {
  directoryGone,
  type ForwardRun,
  type ForwardState,
  readForwardState,
  stoppedCleanly,
  Watermark,
  writeForwardState,
} from "./state.ts";
import type { ForwardTarget } from "./target.ts";
import { readTargetCa } from "./target_ca.ts";
import { storeBacklog } from "./backlog.ts";
import { planResume, type ResumePlan, type WaitingLane } from "./resume_scan.ts";
import type { GivenUp } from "./undelivered.ts";

/** What the last run left, found at start (events are read back from the store, not held). */
export interface LeftOver {
  /** Events with a target still to deliver. */
  pending: number;
  /** (Event, target) pairs every attempt of which failed, grouped by endpoint and target. */
  givenUp: GivenUp[];
}

/** Options of {@linkcode startForwarding}. */
export interface ForwardingOptions {
  paths: StorePaths;
  endpoints: readonly Endpoint[];
  /** `--forward-to` (with `--forward-mode`, `--forward-events`): every endpoint's one target, replacing the config's. */
  fallback?: ResolvedForward;
  /** Folder a relative `ca` path is resolved against. @default Deno.cwd() */
  baseDir?: string;
  /** The seam for re-signing (see {@linkcode ForwarderOptions.prepare}). */
  prepare?: ForwarderOptions["prepare"];
  onDelivery?: ForwarderOptions["onDelivery"];
  onAppState?: ForwarderOptions["onAppState"];
  onSenderStalled?: ForwarderOptions["onSenderStalled"];
  onError?: ForwarderOptions["onError"];
}

/** A target of a running `dev`, with its rule compiled. */
export interface RoutedTarget extends ForwardTarget {
  /** Whether its `when` takes an event. */
  readonly test: EventTest;
  /** It has a `when`. */
  readonly ruled: boolean;
}

/** What a reload changed in the targets. */
export interface TargetChanges {
  /** `endpoint target` of the targets added. */
  added: string[];
  /** Kept by name but changed (URL, rule or options). */
  changed: string[];
  /** Removed; with the events that were queued for them (kept undelivered in the log). */
  removed: { endpoint: string; target: string; kept: number }[];
}

/** Forwarding of a running `dev`. */
export interface ForwardingSession {
  /** The targets of an endpoint, in config order (empty: its events are not forwarded). */
  targetsOf(endpoint: string): readonly RoutedTarget[];
  /**
   * Chooses the targets of a stored-to-be event (its provider, type and
   * verdict known) and sets its forward mark; `undefined` when its endpoint
   * does not forward.
   */
  route(event: CapturedEvent): readonly RoutedTarget[] | undefined;
  readonly forwarder: Forwarder;
  /** Every target, for the banner. */
  readonly targets: ReadonlyMap<string, RoutedTarget>;
  /** Events the last run left undelivered (found at start). */
  readonly leftOver: LeftOver;
  /** Whether sending an endpoint's old events again needs `--resign` (it has a secret). */
  resignsOf?(endpoint: string): boolean;
  /**
   * Throws when a target is the receiver itself.
   * @throws {UsageError}
   */
  checkLoop(receiver: { hostname: string; port: number }): void;
  /**
   * The inspector's port, once it listens: a reload that points a target at it is refused, as one pointing
   * at the receiver is (the inspector itself is started on a port no target uses).
   */
  guardInspector(port: number): void;
  /** Delivers the events the last run left pending (in order, before newer ones); returns how many deliveries. */
  resume(): number;
  /** How many targets {@linkcode ForwardingSession.resume} sends to (the order holds within each). */
  readonly resumeTargets?: number;
  /** `--skip-pending`: leaves them undelivered (for `replay --undelivered` and the next start). */
  skipPending(): void;
  /** Pending (event, target) pairs of the last run whose target the config no longer has, per `endpoint target`. */
  readonly orphaned: ReadonlyMap<string, number>;
  /** The URL of an orphaned target when the events' marks name it (a `--forward-to` of an earlier run). */
  readonly orphanedTo: ReadonlyMap<string, string>;
  /**
   * A reloaded config: new events follow its targets and rules at once;
   * events queued for a removed target are dropped from the queue and kept
   * undelivered (reported in the result).
   * @throws {UsageError} when a CA file cannot be read (nothing changes then).
   */
  update(endpoints: readonly Endpoint[]): Promise<TargetChanges>;
  /**
   * Stops: in-flight deliveries get `graceMs`, the rest stay for the next start. Marks the run clean in
   * `.hooktap/forward_state.json` when every attempt it started was recorded and nothing an unclean last
   * run left waits still (else it stays `running`, as a crash leaves it).
   */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Whether sending an endpoint's events again later needs `--resign`: it has a secret and its provider's
 * signatures carry a timestamp (Stripe, Slack, Standard Webhooks, …), so a stored one is stale by then, or
 * cover the URL the sender called (Twilio), which is never the app's. An endpoint whose provider is detected
 * per event counts when it has a secret.
 */
export function resendNeedsResign(endpoint: Endpoint | undefined, detected?: string): boolean {
  const signing = endpoint?.signing;
  if (signing === undefined || signing.secrets.length === 0) return false;
  // The endpoint's provider, else the one detected on the event (when known): does it sign a timestamp?
  const provider = signing.provider ?? detected;
  const facts = provider === undefined ? undefined : providerFacts(provider);
  return provider === undefined || facts?.timestamped === true || facts?.signsUrl === true;
}

async function toTarget(forward: ResolvedForward, endpoint: string, baseDir: string): Promise<RoutedTarget> {
  const ca = await readTargetCa(forward, baseDir, endpoint);
  const { caFile: _, ...rest } = forward;
  return {
    ...rest,
    endpoint,
    test: compileWhen(forward.when),
    ruled: forward.when !== undefined,
    ...(ca !== undefined ? { ca } : {}),
  };
}

/** Each endpoint's targets: `--forward-to`'s one when given, else the config's. */
async function targetsByEndpoint(
  endpoints: readonly Endpoint[],
  fallback: ResolvedForward | undefined,
  baseDir: string,
): Promise<Map<string, RoutedTarget[]>> {
  const byEndpoint = new Map<string, RoutedTarget[]>();
  for (const endpoint of endpoints) {
    const list = fallback !== undefined
      ? [fallback]
      : endpoint.targets ?? (endpoint.forward !== undefined ? [endpoint.forward] : []);
    if (list.length === 0) continue;
    byEndpoint.set(endpoint.name, await Promise.all(list.map((f) => toTarget(f, endpoint.name, baseDir))));
  }
  return byEndpoint;
}

const sameTarget = (a: RoutedTarget, b: RoutedTarget) => {
  const strip = ({ test: _t, ...rest }: RoutedTarget) => JSON.stringify(rest);
  return strip(a) === strip(b);
};

/** Every target once, by mode, URL and (for a ruled one) name. */
function _allTargets(byEndpoint: ReadonlyMap<string, RoutedTarget[]>): Map<string, RoutedTarget> {
  const targets = new Map<string, RoutedTarget>();
  for (const list of byEndpoint.values()) {
    for (const t of list) targets.set(`${t.mode} ${t.to}${t.ruled ? ` ${t.name}` : ""}`, t);
  }
  return targets;
}

/** What a reload changes: targets added and changed (`removed` is filled once they are retired), and the gone ones. */
function _targetChanges(
  before: ReadonlyMap<string, RoutedTarget[]>,
  after: ReadonlyMap<string, RoutedTarget[]>,
): { changes: TargetChanges; gone: Set<string> } {
  const changes: TargetChanges = { added: [], changed: [], removed: [] };
  const gone = new Set<string>();
  for (const [endpoint, list] of before) {
    const now = after.get(endpoint) ?? [];
    for (const t of list) {
      const same = now.find((n) => n.name === t.name);
      if (same === undefined) gone.add(retiredKey({ endpoint, name: t.name }));
      else if (!sameTarget(same, t)) changes.changed.push(`${endpoint} ${t.name}`);
    }
  }
  for (const [endpoint, list] of after) {
    const was = before.get(endpoint) ?? [];
    for (const t of list) {
      if (!was.some((b) => b.name === t.name)) changes.added.push(`${endpoint} ${t.name}`);
    }
  }
  return { changes, gone };
}

/**
 * Each target's waiting events of the last run, set up (paused) on the forwarder before any live event can
 * arrive: events received before the resume (a hub's catch-up, a fast sender) wait in the store behind them
 * instead of going first and being read back a second time.
 */
function _resumeLanes(
  plan: ResumePlan,
  byEndpoint: ReadonlyMap<string, RoutedTarget[]>,
  forwarder: Forwarder,
): { resuming: Resuming[]; resumingLanes: WaitingLane[]; resumeCount: number } {
  const resuming: Resuming[] = [];
  const resumingLanes: WaitingLane[] = [];
  let resumeCount = 0;
  for (const lane of plan.lanes.values()) {
    const target = byEndpoint.get(lane.endpoint)?.find((t) => t.name === lane.name);
    if (target === undefined) continue;
    const relay = target.mode === "relay";
    // Relay events whose sender is long gone are delivered in the background like queued ones, in a lane
    // of their own that stops where the last run's events end (later ones were relayed).
    resuming.push(forwarder.resumeFrom(
      relay ? { ...target, mode: "queue" } : target,
      lane.first,
      plan.admit(lane.endpoint, lane.name),
      {
        count: lane.count,
        ...(relay ? { key: `${lane.endpoint}\n${lane.name}\nresume`, until: plan.size } : {}),
      },
    ));
    resumingLanes.push(lane);
    resumeCount += lane.count;
  }
  return { resuming, resumingLanes, resumeCount };
}

/**
 * `.hooktap/forward_state.json` for this run: marked `running` at once, before any attempt (a crash or kill
 * leaves it so, and the next start takes the app as maybe having seen what waits; when that write fails,
 * `marked` is false and the run is never marked clean), then saved in order with the watermark.
 */
async function _stateFile(
  path: string,
  watermark: Watermark,
  onError: ((error: unknown) => void) | undefined,
): Promise<{ marked: boolean; save(run: ForwardRun): void; saved(): Promise<void> }> {
  const stateOf = (run: ForwardRun): ForwardState => {
    const mark = watermark.mark; // none while no event has settled: older hooktap reads "no watermark"
    return { v: 1, ...(mark !== undefined ? { settledThrough: mark } : {}), run };
  };
  let saving: Promise<void> = Promise.resolve();
  let marked = true;
  try {
    await writeForwardState(path, stateOf("running"));
  } catch (error) {
    marked = false;
    onError?.(error);
  }
  return {
    marked,
    save(run) {
      const state = stateOf(run);
      saving = saving.then(() => writeForwardState(path, state)).catch(async (error) => {
        // The data directory deleted while dev runs: dev stops and says why (src/commands/dev/run.ts).
        if (!(await directoryGone(path, error))) onError?.(error);
      });
    },
    saved: () => saving,
  };
}

/** `forwarder`, its relays taken (`take`) so the watermark waits for them; the rest (its live counts) its own. */
function _tracking(forwarder: Forwarder, take: (id: string) => void): Forwarder {
  // Its prototype is `forwarder`: every count reads the engine's live value, whatever counts it gains.
  const tracked: Forwarder = Object.create(forwarder);
  tracked.relay = (event, target, left, stopped) => {
    take(event.id);
    return forwarder.relay(event, target, left, stopped);
  };
  return tracked;
}

/**
 * Starts forwarding, or returns `undefined` when no endpoint forwards.
 * @throws {UsageError} when a CA file cannot be read.
 */
export async function startForwarding(options: ForwardingOptions): Promise<ForwardingSession | undefined> {
  const baseDir = options.baseDir ?? Deno.cwd();
  let byEndpoint = await targetsByEndpoint(options.endpoints, options.fallback, baseDir);
  let endpoints = options.endpoints;
  let targets = _allTargets(byEndpoint);
  if (byEndpoint.size === 0) return undefined;
  const last = await readForwardState(options.paths.forwardState);
  const watermark = new Watermark(last?.settledThrough);
  // The last run stopped cleanly: a waiting event's records tell whether the app may have seen it.
  const lastClean = stoppedCleanly(last);
  // Streaming: no event is held; each target's waiting events are read back in order as it drains.
  const plan = await planResume(options.paths, watermark.mark, (name) => byEndpoint.get(name), lastClean);
  const leftOver: LeftOver = { pending: plan.events, givenUp: plan.givenUp };
  const log = await openDeliveriesLog(options.paths.deliveries);
  const state = await _stateFile(options.paths.forwardState, watermark, options.onError);
  const save = state.save;
  /** Deliveries of the last run's waiting events settled (delivered or given up) by this run. */
  let resumedSettled = 0;
  let saveTimer: ReturnType<typeof setTimeout> | undefined;
  /** Deliveries taken and not settled, per event: the mark passes an event once all its targets settle. */
  const open = new Map<string, number>();
  const take = (id: string) => {
    watermark.take(id);
    open.set(id, (open.get(id) ?? 0) + 1);
  };
  // A waiting event of the last run still counts: the mark may not pass the first one until it settles.
  for (const lane of plan.lanes.values()) watermark.take(lane.first.id);
  const relayTarget = (t: ForwardTarget) =>
    byEndpoint.get(t.endpoint ?? "")?.find((x) => x.name === t.name)?.mode === "relay";
  const forwarder = createForwarder({
    log,
    backlog: storeBacklog(options.paths),
    // A relay target's queued copies (hooktap answered itself) stay in memory: the store holds its relayed ones too.
    spills: (t) => !relayTarget(t),
    onTake: (event) => take(event.id),
    onPin: (id) => take(id),
    ...(options.prepare ? { prepare: options.prepare } : {}),
    ...(options.onDelivery ? { onDelivery: options.onDelivery } : {}),
    ...(options.onAppState ? { onAppState: options.onAppState } : {}),
    ...(options.onSenderStalled ? { onSenderStalled: options.onSenderStalled } : {}),
    ...(options.onError ? { onError: options.onError } : {}),
    onSettled: (event) => {
      if (plan.lastId !== undefined && event.id <= plan.lastId) resumedSettled++;
      const left = (open.get(event.id) ?? 1) - 1;
      if (left > 0) return void open.set(event.id, left);
      open.delete(event.id);
      if (!watermark.settle(event.id)) return;
      saveTimer ??= setTimeout(() => {
        saveTimer = undefined;
        save("running");
      }, 500);
    },
  });
  const track = _tracking(forwarder, take);
  const orphaned = new Map<string, number>(plan.orphaned);
  // Each target's waiting events, set up before any live event can arrive: events received before the
  // resume (a hub's catch-up, a fast sender) wait in the store behind them instead of going first and being
  // read back a second time.
  const { resuming, resumingLanes, resumeCount } = _resumeLanes(plan, byEndpoint, forwarder);
  let listening: { hostname: string; port: number } | undefined;
  let inspectorPort: number | undefined;
  return {
    targetsOf: (name) => byEndpoint.get(name) ?? [],
    route(event) {
      const list = byEndpoint.get(event.endpoint);
      if (list === undefined) return undefined;
      const plain = list.length === 1 && !list[0]!.ruled;
      const chosen = plain ? list : chooseTargets(list, event);
      const first = chosen[0] ?? list[0]!;
      if (plain) event.forward = { to: first.to, mode: first.mode };
      else {
        event.v = 2; // a v2 field: see ForwardMark.targets
        event.forward = { to: first.to, mode: first.mode, targets: chosen.map((t) => t.name) };
      }
      return chosen;
    },
    forwarder: track,
    get targets() {
      return targets;
    },
    leftOver,
    orphaned,
    orphanedTo: plan.orphanedTo,
    resignsOf: (name) => resendNeedsResign(endpoints.find((e) => e.name === name)),
    guardInspector(port) {
      inspectorPort = port;
    },
    checkLoop(receiver) {
      listening = receiver;
      for (const target of targets.values()) {
        const problem = loopProblem(target.to, receiver);
        if (problem !== undefined) throw new UsageError(problem);
      }
    },
    resume() {
      for (const r of resuming) r.start();
      return resumeCount;
    },
    resumeTargets: resumingLanes.filter((l) => l.count > 0).length,
    skipPending() {
      // New events only (after the scan); the last run's stay undelivered, the watermark pinned before them.
      const from = { offset: plan.size, id: "" };
      for (const [i, r] of resuming.entries()) {
        const lane = resumingLanes[i]!;
        const admit = plan.admit(lane.endpoint, lane.name);
        r.skip(from, (e) => (plan.lastId === undefined || e.id > plan.lastId ? admit(e) : undefined));
      }
    },
    async update(next) {
      const nextBy = await targetsByEndpoint(next, options.fallback, baseDir);
      for (const list of nextBy.values()) {
        for (const target of list) {
          // A reload must not make hooktap send to itself.
          const problem = (listening && loopProblem(target.to, listening)) ||
            (inspectorPort !== undefined &&
              loopProblem(target.to, { hostname: "127.0.0.1", port: inspectorPort, what: "inspector" }));
          if (problem) throw new UsageError(problem);
        }
      }
      const { changes, gone } = _targetChanges(byEndpoint, nextBy);
      byEndpoint = nextBy;
      endpoints = next;
      targets = _allTargets(byEndpoint);
      if (gone.size > 0) {
        const inStore = new Map<string, number>();
        const dropped = forwarder.retire((t) => gone.has(retiredKey(t)), inStore);
        for (const key of gone) {
          const [endpoint, target] = key.split("\n") as [string, string];
          const kept = (dropped.get(key)?.size ?? 0) + (inStore.get(key) ?? 0);
          changes.removed.push({ endpoint, target, kept });
        }
      }
      return changes;
    },
    async stop(graceMs) {
      const report = await forwarder.stop(graceMs);
      closeIdleConnections();
      clearTimeout(saveTimer);
      await log.close();
      // An unclean last run's waiting events keep their "may have seen it" until they settle: while some
      // wait (left by --skip-pending, a reload, the stop, or a target no longer configured), not clean.
      const inherited = !lastClean && (resumedSettled < resumeCount || plan.orphaned.size > 0);
      const clean = state.marked && report.abandoned === 0 && report.unrecorded === 0 && !inherited;
      save(clean ? "clean" : "running");
      await state.saved();
    },
  };
}
