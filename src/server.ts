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
}

/** A running receiver. */
export interface Listener {
  /** The port actually bound (differs from the option when it was 0). */
  readonly port: number;
  readonly hostname: string;
  /** Stops accepting, lets in-flight requests finish. */
  shutdown(): Promise<void>;
  /** Settles when the server has stopped. */
  readonly finished: Promise<void>;
}

/**
 * Starts serving `handler`.
 * @throws {ServeError} when the port cannot be bound, saying why and what to do.
 */
export function listen(handler: Handler, options: ListenOptions): Listener {
  const { hostname, port } = options;
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
    }, handler);
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
    shutdown: () => server.shutdown(),
    finished: server.finished,
  };
}
