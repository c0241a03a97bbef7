/**
 * The one owner of the receiver's listening socket: binds the handler with
 * the chosen stack (Deno.serve or node:http, see stack.ts), turns bind
 * failures into clear errors, and drains on shutdown.
 * @module
 */
import { describeError, ServeError } from "../errors.ts";
import type { Handler } from "../receiver/handler.ts";
import { DEFAULT_SERVER, type ResolvedServer } from "../config/server.ts";
import { BodyBudget } from "../receiver/budget.ts";
import { StallWatch } from "../receiver/stall.ts";
import { createDrain } from "./drain.ts";
import type { StackName } from "./stack.ts";
import type { ServingStack, StackOptions } from "./_types.ts";

export { STOPPING_MESSAGE } from "./drain.ts";

/** Options of {@linkcode listen}. */
export interface ListenOptions {
  /** Interface to bind. */
  hostname: string;
  /** Port; 0 picks a free one. */
  port: number;
  /**
   * The HTTP stack (`chooseStack` in stack.ts picks it from the config).
   * @default "deno"
   */
  stack?: StackName;
  /** Called with an error the handler threw (it answers 500). */
  onError?: (error: unknown) => void;
  /**
   * On shutdown, longest wait for requests already in the handler (a body
   * still uploading) before bodies still arriving are cut off and answered
   * a retryable 503.
   * @default 5000
   */
  drainTimeoutMs?: number;
  /**
   * After the drain, longest wait for the server to close. A client that
   * went silent mid-body can keep it open; past this wait the listener
   * counts as finished anyway (nothing acknowledged is pending).
   * @default 2000
   */
  closeTimeoutMs?: number;
  /**
   * Timeouts, the connection cap and the bound of body bytes in flight (the config's `server`).
   * @default DEFAULT_SERVER
   */
  limits?: ResolvedServer;
  /** Called with a problem the server survived (an accept error, a connection over the cap). */
  onNotice?: (message: string) => void;
}

/** A running receiver. */
export interface Listener {
  /** The port actually bound (differs from the option when it was 0). */
  readonly port: number;
  readonly hostname: string;
  readonly stack: StackName;
  /** Requests inside the handler now (uploads or saves under way). */
  readonly inFlight: number;
  /**
   * Stops: requests already in the handler finish (up to `drainTimeoutMs`;
   * bodies still arriving then get a 503), new ones are answered 503 with
   * `connection: close`, then the server closes. Resolves to the number of
   * requests cut off.
   */
  shutdown(): Promise<number>;
  /** Settles when the server has stopped, or when a shutdown gave up waiting for a silent client. */
  readonly finished: Promise<void>;
}

const INTERNAL_ERROR = "hooktap hit an internal error; nothing was stored.";

function bindError(error: unknown, hostname: string, port: number): ServeError {
  const where = `${hostname}:${port}`;
  const code = (error as { code?: unknown } | null)?.code;
  if (error instanceof Deno.errors.AddrInUse || code === "EADDRINUSE") {
    return new ServeError(
      `Cannot bind port ${port} on ${hostname}: address already in use (another hooktap dev?). ` +
        `Stop the other process, or pick another port with --port or \`port\` in hooktap.config.ts.`,
      { cause: error },
    );
  }
  if (error instanceof Deno.errors.PermissionDenied || code === "EACCES") {
    return new ServeError(
      `Cannot bind ${where}: permission denied. Ports below 1024 need privileges: use a port like 8787.`,
      { cause: error },
    );
  }
  if (error instanceof Deno.errors.NotCapable) {
    return new ServeError(
      `Cannot bind ${where}: Deno did not grant network access. Run with --allow-net (or --allow-net=${where}).`,
      { cause: error },
    );
  }
  if (error instanceof Deno.errors.AddrNotAvailable || code === "EADDRNOTAVAIL") {
    return new ServeError(
      `Cannot bind ${where}: that address is not on this machine. Use --host 127.0.0.1 (the default).`,
      { cause: error },
    );
  }
  return new ServeError(`Cannot listen on ${where}: ${describeError(error)}`, { cause: error });
}

/**
 * Starts serving `handler`.
 * @throws {ServeError} when the port cannot be bound, saying why and what to do.
 */
export async function listen(handler: Handler, options: ListenOptions): Promise<Listener> {
  const { hostname, port } = options;
  const stack = options.stack ?? "deno";
  const drain = createDrain(handler);
  const limits = options.limits ?? DEFAULT_SERVER;
  let giveUp = () => {};
  const gaveUp = new Promise<void>((resolve) => (giveUp = resolve));
  const stackOptions: StackOptions = {
    hostname,
    port,
    cutOff: drain.cutOff,
    onError: options.onError,
    errorMessage: INTERNAL_ERROR,
    // maxConnections also bounds the requests waiting for their body (both stacks; on Deno.serve the only
    // connection bound there is): past it, 503 with Retry-After.
    budget: new BodyBudget(
      limits.maxBodyBytesInFlight,
      limits.maxConnections > 0 ? limits.maxConnections : Number.POSITIVE_INFINITY,
    ),
    stall: new StallWatch(limits.bodyTimeoutMs),
    limits,
    onNotice: options.onNotice,
  };
  let server: ServingStack;
  try {
    server = stack === "node"
      ? await (await import("./node_stack.ts")).serveNode(drain.handler, stackOptions)
      : await (await import("./deno_stack.ts")).serveDeno(drain.handler, stackOptions);
  } catch (error) {
    throw bindError(error, hostname, port);
  }
  return {
    port: server.port,
    hostname: server.hostname,
    stack,
    get inFlight() {
      return drain.inFlight;
    },
    async shutdown() {
      // Closing the server first would cut off request bodies still being read
      // (the handler would answer 400): let them finish, or answer them 503.
      const cutOff = await drain.stop(options.drainTimeoutMs ?? 5000);
      // A client that stopped sending mid-body may hold its connection open.
      const closed = server.close();
      const timer = setTimeout(giveUp, options.closeTimeoutMs ?? 2000);
      await Promise.race([closed, gaveUp]);
      clearTimeout(timer);
      stackOptions.stall.close();
      return cutOff;
    },
    finished: Promise.race([server.finished, gaveUp]),
  };
}
