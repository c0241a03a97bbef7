/**
 * A running `hooktap dev`: the writer lock, the event log, its endpoint
 * index and the listening receiver, started together and stopped in order
 * (stop accepting, drain, flush, close the index, release the lock). The
 * `dev` command wraps this with its config lookup and its terminal output.
 * @module
 */
import type { ResolvedConfig } from "./config/types.ts";
import { createHandler, type RequestOutcome } from "./receiver/handler.ts";
import { listen } from "./server.ts";
import { ensureDataDir } from "./store/write/data_dir.ts";
import { keepIndex } from "./store/write/index_keeper.ts";
import { compactWhileWriting } from "./store/write/prune.ts";
import { startControl } from "./store/write/control.ts";
import type { CompactPlan, CompactResult } from "./store/write/compact.ts";
import { startRetention } from "./store/write/retention.ts";
import { acquireWriterLock } from "./store/write/lock.ts";
import type { StorePaths } from "./store/paths.ts";
import { openEventWriter } from "./store/write/writer.ts";

/** Options of {@linkcode startDevSession}. */
export interface DevSessionOptions {
  /** The endpoints and body limit to serve, and the retention to apply. */
  config: Pick<ResolvedConfig, "endpoints" | "retention">;
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
  /** Called after `retention` pruned the log (or failed to). */
  onRetention?: (result: CompactResult | Error) => void;
}

/** A started session. */
export interface DevSession {
  /** The port bound (the real one when 0 was asked). */
  readonly port: number;
  readonly hostname: string;
  /** Bytes of a torn last line cut off the log at start (0 if none). */
  readonly repairedBytes: number;
  /** Stops accepting and drains; `finished` settles once everything is closed. */
  stop(): Promise<void>;
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
      await writer.close();
      await index.close();
    };
    const handler = createHandler({
      endpoints: options.config.endpoints,
      sink: writer,
      ...(options.onOutcome ? { onOutcome: options.onOutcome } : {}),
    });
    let server;
    try {
      server = listen(handler, {
        hostname: options.hostname,
        port: options.port,
        ...(options.onError ? { onError: options.onError } : {}),
      });
    } catch (error) {
      await close();
      throw error;
    }
    await lock.describe({ pid: Deno.pid, port: server.port, startedAt: new Date().toISOString() });
    const finished = server.finished.then(close).then(() => writer.count).finally(() => lock.release());
    return {
      port: server.port,
      hostname: server.hostname,
      repairedBytes: writer.repairedBytes,
      stop: () => server.shutdown(),
      finished,
    };
  } catch (error) {
    lock.release();
    throw error;
  }
}
