/**
 * Keeping a `Deno.serve` server serving. Deno.serve ends its server on an
 * accept error (EMFILE: out of descriptors); the owner then serves again on
 * the same port, backing off (50 ms doubling to 1 s) until the bind succeeds:
 * a descriptor flood costs the connections open at the time, never the
 * listener. Used by dev's receiver (deno_stack.ts) and the hub (src/hub/serve.ts).
 * @module
 */
import { wakeableSleep } from "../timer.ts";

/** A server that can be started again on its port. */
export interface Restartable {
  readonly finished: Promise<void>;
  shutdown(): Promise<void>;
}

/** The server being served, and how to stop serving it. */
export interface Serving<S extends Restartable> {
  /** The server serving now (another one after a restart). */
  current(): S;
  /** Settles once serving stopped (after {@linkcode Serving.close}, or a clean end). */
  readonly finished: Promise<void>;
  /** Stops restarting and shuts the current server down. */
  close(): Promise<void>;
}

/**
 * Serves `first`, and after an accept error a server from `start()` (on the same port), until closed.
 * @param onStop told why the server stopped (it is then served again).
 * @param onBack told when a new server accepts again.
 */
export function serveAgain<S extends Restartable>(
  first: S,
  start: () => S,
  options: { onStop?: (error: unknown) => void; onBack?: () => void } = {},
): Serving<S> {
  let server = first;
  let closing = false;
  const { sleep, wake } = wakeableSleep();
  const finished = (async () => {
    for (;;) {
      try {
        await server.finished;
        return;
      } catch (error) {
        if (closing) return;
        options.onStop?.(error);
      }
      // Out of descriptors, binding fails too until connections close: back off and retry.
      for (let delay = 50; !closing; delay = Math.min(delay * 2, 1000)) {
        await sleep(delay);
        if (closing) return;
        try {
          server = start();
          options.onBack?.();
          break;
        } catch { /* still no descriptor (or the port is busy): wait more */ }
      }
      if (closing) return;
    }
  })();
  return {
    current: () => server,
    finished,
    async close() {
      closing = true;
      wake();
      await server.shutdown().catch(() => {});
      await finished;
    },
  };
}
