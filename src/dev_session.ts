/**
 * A running `hooktap dev`: the writer lock, the event log, its endpoint
 * index and the listening receiver, started together and stopped in order
 * (stop accepting, drain, flush, close the index, release the lock). The
 * `dev` command wraps this with its config lookup and its terminal output.
 * @module
 */
import type { ResolvedConfig } from "./config/types.ts";
import type { ResolvedForward } from "./config/forward.ts";
import { resignWhenStale } from "./forward/resign_stale.ts";
import { type ForwardingOptions, type ForwardingSession, startForwarding } from "./forward/session.ts";
import { createHandler, type EventSink, type RequestOutcome } from "./receiver/handler.ts";
import { listen } from "./server/listen.ts";
import { chooseStack, type StackName } from "./server/stack.ts";
import type { CapturedEvent } from "./event/record.ts";
import { newRunNonce, withProbe } from "./receiver/probe.ts";
import { createRouter, type Router } from "./route/router.ts";
import { ensureDataDir } from "./store/write/data_dir.ts";
import { keepIndex } from "./store/write/index_keeper.ts";
import { compactWhileWriting } from "./store/write/prune.ts";
import { startControl } from "./store/write/control.ts";
import type { CompactPlan, CompactResult } from "./store/write/compact.ts";
import { startRetention } from "./store/write/retention.ts";
import { acquireWriterLock } from "./store/write/lock.ts";
import type { StorePaths } from "./store/paths.ts";
import { openUnmatchedLog } from "./store/write/unmatched.ts";
import { openEventWriter } from "./store/write/writer.ts";

/** Options of {@linkcode startDevSession}. */
export interface DevSessionOptions {
  /** The endpoints and body limit to serve, and the retention to apply. */
  config: Pick<ResolvedConfig, "endpoints" | "retention"> & { server?: ResolvedConfig["server"] };
  /** The data directory to write. */
  paths: StorePaths;
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
  await ensureDataDir(paths);
  const lock = await acquireWriterLock(paths);
  try {
    const writer = await openEventWriter(paths);
    const index = keepIndex(paths, writer); // .hooktap/index.json for `inspect --endpoint`
    let forwarding: ForwardingSession | undefined;
    const unmatched = await openUnmatchedLog(paths); // 404/405s, for `logs --unmatched` and `doctor`
    const compact = (plan: CompactPlan) => compactWhileWriting(paths, writer, index, plan);
    const control = await startControl(paths, compact);
    const retention = options.config.retention === undefined ? undefined : startRetention(
      options.config.retention,
      compact,
      {
        onPruned: (r) => options.onRetention?.(r),
        onError: (e) => options.onRetention?.(e instanceof Error ? e : new Error(String(e))),
      },
    );
    const close = async () => {
      await retention?.close();
      await control?.close();
      await forwarding?.stop();
      await writer.close();
      await index.close();
      await unmatched.close();
    };
    try {
      const endpoints = options.config.endpoints;
      forwarding = await startForwarding({
        paths,
        endpoints,
        prepare: resignWhenStale(() => endpoints),
        ...options.forward,
      });
    } catch (error) {
      await close();
      throw error;
    }
    const router = createRouter(options.config.endpoints);
    const onOutcome = options.onOutcome;
    const handler = createHandler({
      endpoints: options.config.endpoints,
      router,
      sink: options.onStored ? publishing(writer, options.onStored) : writer,
      ...(forwarding ? { forward: forwarding } : {}),
      onOutcome: (o) => {
        if (o.status === 404 || o.status === 405) {
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
    const run = newRunNonce(); // the probe answers it; doctor matches it with dev.lock's
    let server;
    try {
      server = await listen(withProbe(handler, run), {
        hostname: options.hostname,
        port: options.port,
        stack: choice.stack,
        ...(options.config.server ? { limits: options.config.server } : {}),
        ...(options.onError ? { onError: options.onError } : {}),
        ...(options.onNotice ? { onNotice: options.onNotice } : {}),
      });
      forwarding?.checkLoop(server);
    } catch (error) {
      if (server !== undefined) await server.shutdown();
      await close();
      throw error;
    }
    await lock.describe({ pid: Deno.pid, port: server.port, startedAt: new Date().toISOString(), run });
    const finished = server.finished.then(close).then(() => writer.count).finally(() => lock.release());
    return {
      port: server.port,
      hostname: server.hostname,
      router,
      repairedBytes: writer.repairedBytes,
      ...(forwarding ? { forwarding } : {}),
      stack: choice.stack,
      stackReason: choice.reason,
      get inFlight() {
        return server.inFlight;
      },
      stop: () => server.shutdown(),
      finished,
    };
  } catch (error) {
    lock.release();
    throw error;
  }
}

/** A sink that appends, then tells `onStored` (whose errors never reach the sender). */
function publishing(sink: EventSink, onStored: (event: CapturedEvent) => void): EventSink {
  return {
    async append(event) {
      await sink.append(event);
      try {
        onStored(event);
      } catch { /* a listener's failure is not the sender's */ }
    },
  };
}
