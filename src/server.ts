/**
 * The one module that owns `Deno.serve`: binds the receiver's handler to a
 * TCP port and turns bind failures into clear errors.
 * @module
 */
import { describeError, ServeError } from "./errors.ts";
import type { Handler } from "./receiver/handler.ts";

/** Options of {@linkcode listen}. */
export interface ListenOptions {
  /** Interface to bind. */
  hostname: string;
  /** Port; 0 picks a free one. */
  port: number;
  /** Called with an error the handler threw (it answers 500). */
  onError?: (error: unknown) => void;
  /**
   * On shutdown, longest wait for requests already in the handler (a body
   * still uploading) before the server closes their connections.
   * @default 5000
   */
  drainTimeoutMs?: number;
  /**
   * After the drain, longest wait for Deno's server to close. A client that
   * went silent mid-body keeps it open for ever; past this wait the
   * listener counts as finished anyway (nothing acknowledged is pending).
   * @default 2000
   */
  closeTimeoutMs?: number;
}

/** Body of the 503 a request gets when it arrives while hooktap is stopping. */
export const STOPPING_MESSAGE = "hooktap is shutting down; nothing was stored. Retry in a moment.";

/** A running receiver. */
export interface Listener {
  /** The port actually bound (differs from the option when it was 0). */
  readonly port: number;
  readonly hostname: string;
  /**
   * Stops: requests already in the handler finish (up to `drainTimeoutMs`),
   * new ones are answered 503 with `connection: close`, then the server closes.
   */
  shutdown(): Promise<void>;
  /** Settles when the server has stopped, or when a shutdown gave up waiting for a silent client. */
  readonly finished: Promise<void>;
}

/**
 * Starts serving `handler`.
 * @throws {ServeError} when the port cannot be bound, saying why and what to do.
 */
export function listen(handler: Handler, options: ListenOptions): Listener {
  const { hostname, port } = options;
  const drain = createDrain(handler);
  let giveUp = () => {};
  const gaveUp = new Promise<void>((resolve) => (giveUp = resolve));
  let server: Deno.HttpServer<Deno.NetAddr>;
  try {
    server = Deno.serve({
      hostname,
      port,
      onListen: () => {},
      onError: (error) => {
        options.onError?.(error);
        return new Response("hooktap hit an internal error; nothing was stored.", { status: 500 });
      },
    }, drain.handler);
  } catch (error) {
    const where = `${hostname}:${port}`;
    if (error instanceof Deno.errors.AddrInUse) {
      throw new ServeError(
        `Cannot bind port ${port} on ${hostname}: address already in use (another hooktap dev?). ` +
          `Stop the other process, or pick another port with --port or \`port\` in hooktap.config.ts.`,
        { cause: error },
      );
    }
    if (error instanceof Deno.errors.PermissionDenied) {
      throw new ServeError(
        `Cannot bind ${where}: permission denied. Ports below 1024 need privileges: use a port like 8787.`,
        { cause: error },
      );
    }
    if (error instanceof Deno.errors.NotCapable) {
      throw new ServeError(
        `Cannot bind ${where}: Deno did not grant network access. Run with --allow-net (or --allow-net=${where}).`,
        { cause: error },
      );
    }
    if (error instanceof Deno.errors.AddrNotAvailable) {
      throw new ServeError(
        `Cannot bind ${where}: that address is not on this machine. Use --host 127.0.0.1 (the default).`,
        { cause: error },
      );
    }
    throw new ServeError(`Cannot listen on ${where}: ${describeError(error)}`, { cause: error });
  }
  return {
    port: server.addr.port,
    hostname: server.addr.hostname,
    async shutdown() {
      // Deno's server.shutdown() cuts off request bodies still being read (the
      // handler would see a read error and answer 400): let them finish first.
      await drain.stop(options.drainTimeoutMs ?? 5000);
      // ...and never settles while a client that stopped sending mid-body holds its connection.
      const closed = server.shutdown();
      const timer = setTimeout(giveUp, options.closeTimeoutMs ?? 2000);
      await Promise.race([closed, gaveUp]);
      clearTimeout(timer);
    },
    finished: Promise.race([server.finished, gaveUp]),
  };
}

/** Counts requests inside the handler; once stopping, turns new ones away. */
function createDrain(inner: Handler): { handler: Handler; stop(timeoutMs: number): Promise<void> } {
  let inFlight = 0;
  let stopping = false;
  let idle: (() => void) | undefined;
  return {
    async handler(request, info) {
      if (stopping) {
        await request.body?.cancel().catch(() => {});
        return new Response(STOPPING_MESSAGE, {
          status: 503,
          headers: { "content-type": "text/plain; charset=utf-8", connection: "close", "retry-after": "5" },
        });
      }
      inFlight++;
      try {
        return await inner(request, info);
      } finally {
        inFlight--;
        if (inFlight === 0) idle?.();
      }
    },
    async stop(timeoutMs) {
      stopping = true;
      if (inFlight === 0) return;
      let timer: ReturnType<typeof setTimeout> | undefined;
      await new Promise<void>((resolve) => {
        idle = resolve;
        timer = setTimeout(resolve, timeoutMs);
      });
      clearTimeout(timer);
    },
  };
}
