/**
 * A running `hooktap dev`: the writer lock, the event log, its endpoint
 * index and the listening receiver, started together and stopped in order
 * (stop accepting, drain, flush, close the index, release the lock). The
 * `dev` command wraps this with its config lookup and its terminal output;
 * `startReceiver` (src/testing/receiver.ts) runs the same start and stop
 * with the parts a test does not need turned off ({@linkcode SessionParts}).
 * @module
 */
import type { ResolvedConfig } from "../config/types.ts";
import type { ResolvedForward } from "../config/forward.ts";
import { resignWhenStale } from "../send/resign_stale.ts";
import { type ForwardingOptions, type ForwardingSession, startForwarding } from "../send/session.ts";
import { createHandler, type EventSink, type Handler, type RequestOutcome } from "../receiver/handler.ts";
import { listen } from "../server/listen.ts";
import { chooseStack, type StackName } from "../server/stack.ts";
import { type CapturedEvent, decodeBody } from "../event/record.ts";
import { newRunNonce, withProbe } from "../receiver/probe.ts";
import { checkRawHeaders } from "../receiver/header_check.ts";
import { createRouter, type Router } from "../route/router.ts";
import { ensureDataDir } from "../store/write/data_dir.ts";
import { keepIndex } from "../store/write/index_keeper.ts";
import { compactWhileWriting } from "../store/write/prune.ts";
import { startControl } from "../store/write/control.ts";
import { type TriggerNotes, triggerNotes } from "../trigger/side_channel.ts";
import { trustTriggerKeys } from "../trigger/trust.ts";
import type { CompactPlan, CompactResult } from "../store/write/compact.ts";
import { startRetention } from "../store/write/retention.ts";
import { acquireWriterLock } from "../store/write/lock.ts";
import type { StorePaths } from "../store/paths.ts";
import { openUnmatchedLog } from "../store/write/unmatched.ts";
import { openEventWriter } from "../store/write/writer.ts";

/** Options of {@linkcode startDevSession}. */
export interface DevSessionOptions {
  /** The endpoints and body limit to serve, and the retention to apply. */
  config: Pick<ResolvedConfig, "endpoints" | "retention"> & { server?: ResolvedConfig["server"] };
  /**
   * The data directory to write (locked while the session runs). Without it, events are kept nowhere but
   * `onStored`: no lock, log, index, unmatched log, control socket, retention or forwarding.
   */
  paths: StorePaths | undefined;
  /** Interface to bind. */
  hostname: string;
  /** Port to bind; 0 picks a free one. */
  port: number;
  /** Called once per request with what the receiver did. */
  onOutcome?: (outcome: RequestOutcome) => void;
  /** Called with an error the handler threw (the request got a 500). */
  onError?: (error: unknown) => void;
  /** Called with a problem the receiver survived (an accept error, a request it could not parse). */
  onNotice?: (message: string) => void;
  /** Forwarding: `--forward-to`'s target (for endpoints without their own) and the callbacks. */
  forward?: Omit<ForwardingOptions, "paths" | "endpoints" | "fallback"> & { fallback?: ResolvedForward };
  /** Forces the HTTP stack (`HOOKTAP_STACK`); otherwise it is chosen from the endpoints. */
  stack?: string | undefined;
  /** Called with each event once it is durable, before the sender's 200 (the inspector's live feed). */
  onStored?: (event: CapturedEvent) => void;
  /** Called after `retention` pruned the log (or failed to). */
  onRetention?: (result: CompactResult | Error) => void;
  /** Wraps the sink (the hub client keeps its events in the hub's order: src/hub/order.ts). */
  wrapSink?: (sink: EventSink) => EventSink;
  /** The parts to run; each is on unless turned off here (`startReceiver` turns all of them off). */
  parts?: SessionParts;
  /** A router to match with instead of one built from the endpoints. */
  router?: Router;
  /** How long stopping waits for requests in flight, then for the socket to close (the server's defaults). */
  drainTimeoutMs?: number;
  closeTimeoutMs?: number;
}

/** The parts of a session beside the log and the listener; `false` turns one off. */
export interface SessionParts {
  /** `.hooktap/control.sock` for `prune`/`rm` and `hooktap trigger`'s fault notes. */
  control?: boolean;
  /** `.hooktap/unmatched.jsonl`: the 404s and 405s, for `logs --unmatched` and `doctor`. */
  unmatched?: boolean;
  /** Forwarding to the endpoints' targets and `forward.fallback`. */
  forwarding?: boolean;
  /** hooktap trigger's key trusted on key-pair endpoints. */
  triggerKeys?: boolean;
  /** The probe `doctor` sends (and the port and run written in `dev.lock` for it). */
  probe?: boolean;
  /** The start-up check that the runtime keeps the raw header list. */
  headerCheck?: boolean;
}

/** A started session. */
export interface DevSession {
  /** The port bound (the real one when 0 was asked). */
  readonly port: number;
  readonly hostname: string;
  /** The live router: `update()` it to serve a reloaded config's endpoints. */
  readonly router: Router;
  /** Bytes of a torn last line cut off the log at start (0 if none). */
  readonly repairedBytes: number;
  /** Forwarding, when some endpoint forwards. */
  readonly forwarding?: ForwardingSession;
  /** The HTTP stack listening, and why it was chosen. */
  readonly stack: StackName;
  readonly stackReason: string;
  /** Requests being received or saved now. */
  readonly inFlight: number;
  /** The handler behind the listener, for requests that come another way (the hub client). */
  readonly handle: Handler;
  /**
   * Stops accepting and drains; resolves to the number of requests cut off
   * (answered 503); `finished` settles once everything is closed.
   */
  stop(): Promise<number>;
  /** Settles, with the number of events captured, once the session is fully closed. */
  readonly finished: Promise<number>;
}

/**
 * Takes the data directory's writer lock, opens the log and starts serving.
 * @throws {StoreError} when another `hooktap dev` holds the lock or the log cannot be opened.
 * @throws {ServeError} when the port cannot be bound; nothing is left open then.
 */
export async function startDevSession(options: DevSessionOptions): Promise<DevSession> {
  const { paths } = options;
  const parts = options.parts ?? {};
  const on: Required<SessionParts> = {
    control: parts.control ?? true,
    unmatched: parts.unmatched ?? true,
    forwarding: parts.forwarding ?? true,
    triggerKeys: parts.triggerKeys ?? true,
    probe: parts.probe ?? true,
    headerCheck: parts.headerCheck ?? true,
  };
  if (paths !== undefined) await ensureDataDir(paths);
  if (paths !== undefined && on.triggerKeys) {
    options = {
      ...options,
      config: { ...options.config, endpoints: await trustTriggerKeys(paths.dir, options.config.endpoints) },
    };
  }
  const lock = paths === undefined ? undefined : await acquireWriterLock(paths);
  try {
    const store = paths === undefined ? undefined : await openStore(paths, options, on);
    const writer = store?.writer;
    let forwarding: ForwardingSession | undefined;
    const close = async () => {
      await store?.retention?.close();
      await store?.control?.close();
      await forwarding?.stop();
      await writer?.close();
      await store?.index.close();
      await store?.unmatched?.close();
    };
    try {
      const endpoints = options.config.endpoints;
      if (paths !== undefined && on.forwarding) {
        forwarding = await startForwarding({
          paths,
          endpoints,
          prepare: resignWhenStale(() => endpoints),
          ...options.forward,
        });
      }
    } catch (error) {
      await close();
      throw error;
    }
    const router = options.router ?? createRouter(options.config.endpoints);
    const onOutcome = options.onOutcome;
    let stored = 0;
    const kept: EventSink = writer ?? { append: () => Promise.resolve() };
    const counted: EventSink = writer ? kept : {
      append: (event) => kept.append(event).then(() => void stored++),
    };
    const sink = options.onStored ? publishing(counted, options.onStored) : counted;
    const marked = store?.notes ? marking(sink, store.notes) : sink;
    const unmatched = store?.unmatched;
    const handler = createHandler({
      endpoints: options.config.endpoints,
      router,
      sink: options.wrapSink ? options.wrapSink(marked) : marked,
      ...(forwarding ? { forward: forwarding } : {}),
      onOutcome: (o) => {
        if (unmatched && (o.status === 404 || o.status === 405)) {
          const { time, method, path, query, status, allow } = o;
          unmatched.add({
            time: time.toISOString(),
            method,
            path,
            query,
            status,
            ...(allow ? { allow } : {}),
          });
        }
        onOutcome?.(o);
      },
    });
    const choice = chooseStack(options.config.endpoints, options.stack);
    const run = on.probe ? newRunNonce() : undefined; // the probe answers it; doctor matches it with dev.lock's
    let server;
    try {
      server = await listen(run === undefined ? handler : withProbe(handler, run, () => router.endpoints), {
        hostname: options.hostname,
        port: options.port,
        stack: choice.stack,
        ...(options.config.server ? { limits: options.config.server } : {}),
        ...(options.onError ? { onError: options.onError } : {}),
        ...(options.onNotice ? { onNotice: options.onNotice } : {}),
        ...(options.drainTimeoutMs === undefined ? {} : { drainTimeoutMs: options.drainTimeoutMs }),
        ...(options.closeTimeoutMs === undefined ? {} : { closeTimeoutMs: options.closeTimeoutMs }),
      });
      forwarding?.checkLoop(server);
      if (on.headerCheck) await checkRawHeaders(server.hostname, server.port, { stack: choice.stack });
    } catch (error) {
      if (server !== undefined) await server.shutdown();
      await close();
      throw error;
    }
    const startedAt = new Date().toISOString();
    await lock?.describe(
      run === undefined ? { pid: Deno.pid, startedAt } : {
        pid: Deno.pid,
        port: server.port,
        startedAt,
        run,
      },
    );
    const finished = server.finished.then(close, async (error) => {
      await close();
      throw error;
    }).then(() => writer?.count ?? stored).finally(() => lock?.release());
    return {
      port: server.port,
      hostname: server.hostname,
      router: on.triggerKeys && paths !== undefined ? trustingRouter(router, paths.dir) : router,
      repairedBytes: writer?.repairedBytes ?? 0,
      ...(forwarding ? { forwarding } : {}),
      stack: choice.stack,
      stackReason: choice.reason,
      get inFlight() {
        return server.inFlight;
      },
      handle: handler,
      stop: () => server.shutdown(),
      finished,
    };
  } catch (error) {
    lock?.release();
    throw error;
  }
}

/** The log, its index and the parts beside them that a session keeps in its data directory. */
async function openStore(
  paths: StorePaths,
  options: DevSessionOptions,
  on: Required<SessionParts>,
) {
  const writer = await openEventWriter(paths);
  const index = keepIndex(paths, writer); // .hooktap/index.json for `inspect --endpoint`
  const opened: Array<{ close(): Promise<void> }> = [writer, index];
  try {
    // 404/405s, for `logs --unmatched` and `doctor`
    const unmatched = on.unmatched ? await openUnmatchedLog(paths) : undefined;
    if (unmatched) opened.push(unmatched);
    const compact = (plan: CompactPlan) => compactWhileWriting(paths, writer, index, plan);
    const notes = on.control ? triggerNotes() : undefined; // `hooktap trigger` says which deliveries are faults
    const control = notes ? await startControl(paths, compact, notes.add, options.onNotice) : undefined;
    const retention = options.config.retention === undefined ? undefined : startRetention(
      options.config.retention,
      compact,
      {
        onPruned: (r) => options.onRetention?.(r),
        onError: (e) => options.onRetention?.(e instanceof Error ? e : new Error(String(e))),
      },
    );
    return { writer, index, unmatched, notes, control, retention };
  } catch (error) {
    for (const o of opened) await o.close().catch(() => {});
    throw error;
  }
}

/** `router`, whose `update()` (a reloaded config) also gives key-pair endpoints hooktap's trigger key. */
function trustingRouter(router: Router, dataDir: string): Router {
  let generation = 0;
  return {
    match: (...args) => router.match(...args),
    get endpoints() {
      return router.endpoints;
    },
    update(endpoints) {
      const mine = ++generation;
      router.update(endpoints);
      void trustTriggerKeys(dataDir, endpoints).then((trusted) => {
        if (mine === generation && trusted.some((e, i) => e !== endpoints[i])) router.update(trusted);
      }, () => {});
    },
  };
}

/** A sink that marks the events `hooktap trigger` told about (format v2), then appends. */
function marking(sink: EventSink, notes: TriggerNotes): EventSink {
  return {
    append(event) {
      const mark = notes.take(() => decodeBody(event));
      return sink.append(mark === undefined ? event : { ...event, v: 2, trigger: mark });
    },
  };
}

/** A sink that appends, then tells `onStored` (whose errors never reach the sender). */
function publishing(sink: EventSink, onStored: (event: CapturedEvent) => void): EventSink {
  const tell = (event: CapturedEvent) => {
    try {
      onStored(event);
    } catch { /* a listener's failure is not the sender's */ }
  };
  return { append: (event) => sink.append(event).then(() => tell(event)) };
}
