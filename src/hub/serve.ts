/**
 * `hooktap hub serve`'s listener: the hub's handler on Deno.serve, with
 * TLS when a certificate is given, over a KV file or the platform's KV.
 * @module
 */
import { describeError, ServeError } from "../errors.ts";
import { openHubStore } from "./kv_store.ts";
import { createHubHandler, type HubOptions } from "./server.ts";

/** Options of {@linkcode serveHub}. */
export interface HubServeOptions extends Omit<HubOptions, "store"> {
  hostname: string;
  port: number;
  /** KV file; `undefined` opens the platform's KV. */
  kvPath: string | undefined;
  /** PEM certificate and key, read already. */
  tls?: { cert: string; key: string };
}

/** A running hub. */
export interface RunningHub {
  readonly port: number;
  readonly hostname: string;
  readonly url: string;
  stop(): Promise<void>;
  readonly finished: Promise<void>;
}

/**
 * Opens the store and listens.
 * @throws {ServeError} when the KV file cannot be opened or the port bound.
 */
export async function serveHub(options: HubServeOptions): Promise<RunningHub> {
  let store;
  try {
    store = await openHubStore(options.kvPath);
  } catch (error) {
    throw new ServeError(
      `Cannot open the hub's KV store ${options.kvPath ?? "(platform)"}: ${describeError(error)}`,
      {
        cause: error,
      },
    );
  }
  const handler = createHubHandler({ ...options, store });
  let server: Deno.HttpServer<Deno.NetAddr>;
  try {
    server = Deno.serve({
      hostname: options.hostname,
      port: options.port,
      onListen() {},
      ...(options.tls ?? {}),
    }, (request, info) => handler(request, info));
  } catch (error) {
    store.close();
    const inUse = error instanceof Deno.errors.AddrInUse;
    throw new ServeError(
      inUse
        ? `Cannot bind port ${options.port} on ${options.hostname}: address already in use. Pick another with --port.`
        : `Cannot listen on ${options.hostname}:${options.port}: ${describeError(error)}`,
      { cause: error },
    );
  }
  const { port, hostname } = server.addr;
  const scheme = options.tls ? "https" : "http";
  const host = hostname.includes(":") ? `[${hostname}]` : hostname;
  const finished = server.finished.then(() => store.close());
  return {
    port,
    hostname,
    url: `${scheme}://${host}:${port}`,
    async stop() {
      handler.close();
      await server.shutdown();
      await finished;
    },
    finished,
  };
}
