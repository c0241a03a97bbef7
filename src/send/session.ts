/**
 * Forwarding inside a running `dev`: the targets of each endpoint, the
 * forwarder, the deliveries log and the watermark, started before the
 * receiver listens and stopped after it has drained.
 * @module
 */
import { resolve } from "node:path";
import type { ResolvedForward } from "../config/forward.ts";
import type { Endpoint } from "../config/types.ts";
import { describeError, UsageError } from "../errors.ts";
import type { StorePaths } from "../store/paths.ts";
import { closeIdleConnections } from "./client.ts";
import { openDeliveriesLog } from "./deliveries_log.ts";
import { createForwarder, type Forwarder, type ForwarderOptions } from "./forwarder.ts";
import { loopProblem } from "./loop_check.ts";
import { readForwardState, Watermark, writeForwardState } from "./state.ts";
import { type ForwardTarget, targetNameOf } from "./target.ts";
import { findUndelivered, type Undelivered } from "./undelivered.ts";

/** Options of {@linkcode startForwarding}. */
export interface ForwardingOptions {
  paths: StorePaths;
  endpoints: readonly Endpoint[];
  /** `--forward-to` and `--forward-mode`: the target of endpoints without their own. */
  fallback?: ResolvedForward;
  /** Folder a relative `ca` path is resolved against. @default Deno.cwd() */
  baseDir?: string;
  /** The seam for re-signing (see {@linkcode ForwarderOptions.prepare}). */
  prepare?: ForwarderOptions["prepare"];
  onDelivery?: ForwarderOptions["onDelivery"];
  onAppState?: ForwarderOptions["onAppState"];
  onError?: ForwarderOptions["onError"];
}

/** Forwarding of a running `dev`. */
export interface ForwardingSession {
  /** The target of an endpoint, if its events are forwarded. */
  targetOf(endpoint: string): ForwardTarget | undefined;
  readonly forwarder: Forwarder;
  /** Every distinct target, for the banner. */
  readonly targets: ReadonlyMap<string, ForwardTarget>;
  /** Events the last run left undelivered (found at start). */
  readonly leftOver: Undelivered;
  /** Whether sending an endpoint's old events again needs `--resign` (it has a secret). */
  resignsOf?(endpoint: string): boolean;
  /**
   * Throws when a target is the receiver itself.
   * @throws {UsageError}
   */
  checkLoop(receiver: { hostname: string; port: number }): void;
  /** Delivers the events the last run left pending; returns how many. */
  resume(): number;
  /** Stops: in-flight deliveries get `graceMs`, the rest stay for the next start. */
  stop(graceMs?: number): Promise<void>;
}

async function toTarget(forward: ResolvedForward, baseDir: string): Promise<ForwardTarget> {
  let ca: string | undefined;
  if (forward.caFile !== undefined) {
    const file = resolve(baseDir, forward.caFile);
    try {
      ca = await Deno.readTextFile(file);
    } catch (error) {
      throw new UsageError(`Cannot read forward.ca ${file}: ${describeError(error)}.`);
    }
  }
  const { caFile: _, ...rest } = forward;
  return { ...rest, name: targetNameOf(forward.to), ...(ca !== undefined ? { ca } : {}) };
}

/**
 * Starts forwarding, or returns `undefined` when no endpoint forwards.
 * @throws {UsageError} when a CA file cannot be read.
 */
export async function startForwarding(options: ForwardingOptions): Promise<ForwardingSession | undefined> {
  const baseDir = options.baseDir ?? Deno.cwd();
  const byEndpoint = new Map<string, ForwardTarget>();
  const targets = new Map<string, ForwardTarget>();
  for (const endpoint of options.endpoints) {
    const forward = endpoint.forward ?? options.fallback;
    if (forward === undefined) continue;
    const target = await toTarget(forward, baseDir);
    byEndpoint.set(endpoint.name, target);
    targets.set(`${target.mode} ${target.to}`, target);
  }
  if (byEndpoint.size === 0) return undefined;
  const leftOver = await findUndelivered(options.paths, { afterWatermark: true });
  const log = await openDeliveriesLog(options.paths.deliveries);
  const watermark = new Watermark((await readForwardState(options.paths.forwardState))?.settledThrough);
  let saving: Promise<void> = Promise.resolve();
  let dirty = false;
  const save = () => {
    const mark = watermark.mark;
    if (mark === undefined) return;
    dirty = false;
    saving = saving.then(() => writeForwardState(options.paths.forwardState, { v: 1, settledThrough: mark }))
      .catch(
        (error) => options.onError?.(error),
      );
  };
  let saveTimer: ReturnType<typeof setTimeout> | undefined;
  // A pending event of the last run still counts: the mark may not pass it until it settles.
  for (const e of leftOver.pending) watermark.take(e.id);
  const forwarder = createForwarder({
    log,
    ...(options.prepare ? { prepare: options.prepare } : {}),
    ...(options.onDelivery ? { onDelivery: options.onDelivery } : {}),
    ...(options.onAppState ? { onAppState: options.onAppState } : {}),
    ...(options.onError ? { onError: options.onError } : {}),
    onSettled: (event) => {
      if (!watermark.settle(event.id)) return;
      dirty = true;
      saveTimer ??= setTimeout(() => {
        saveTimer = undefined;
        save();
      }, 500);
    },
  });
  const track: Forwarder = {
    ...forwarder,
    get pending() {
      return forwarder.pending;
    },
    enqueue(event, target) {
      watermark.take(event.id);
      forwarder.enqueue(event, target);
    },
    relay(event, target) {
      watermark.take(event.id);
      return forwarder.relay(event, target);
    },
  };
  return {
    targetOf: (name) => byEndpoint.get(name),
    forwarder: track,
    targets,
    leftOver,
    resignsOf: (name) => (options.endpoints.find((e) => e.name === name)?.signing?.secrets.length ?? 0) > 0,
    checkLoop(receiver) {
      for (const target of targets.values()) {
        const problem = loopProblem(target.to, receiver);
        if (problem !== undefined) throw new UsageError(problem);
      }
    },
    resume() {
      let n = 0;
      for (const event of leftOver.pending) {
        const target = byEndpoint.get(event.endpoint);
        if (target === undefined) continue;
        // Relay events whose sender is long gone are delivered in the background like queued ones.
        forwarder.enqueue(event, target.mode === "relay" ? { ...target, mode: "queue" } : target, {
          attempt: (leftOver.attempts.get(event.id) ?? 0) + 1,
        });
        n++;
      }
      return n;
    },
    async stop(graceMs) {
      await forwarder.stop(graceMs);
      closeIdleConnections();
      clearTimeout(saveTimer);
      if (dirty) save();
      await saving;
      await log.close();
    },
  };
}
