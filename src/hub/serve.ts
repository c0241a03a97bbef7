/**
 * `hooktap hub serve`'s listener: the hub's handler on Deno.serve, with
 * TLS when a certificate is given, over a KV file or the platform's KV.
 * @module
 */
import { closingAnswer, ConnectionClosedOnPurpose, mustClose } from "../receiver/closing.ts";
import { serveAgain } from "../server/serve_again.ts";
import { describeError, ServeError } from "../errors.ts";
import { chmodSidecars } from "./kv_file.ts";
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
  /** Called with a problem the hub survived (it stopped accepting and serves again). */
  onNotice?: (message: string) => void;
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
    if (options.kvPath !== undefined) await chmodSidecars(options.kvPath); // 0600 whatever the umask
  } catch (error) {
    throw new ServeError(
      `Cannot open the hub's KV store ${options.kvPath ?? "(platform)"}: ${describeError(error)}`,
      {
        cause: error,
      },
    );
  }
  const handler = createHubHandler({ ...options, store });
  const start = (port: number) =>
    Deno.serve({
      hostname: options.hostname,
      port,
      onListen() {},
      onError: (error) => {
        if (!(error instanceof ConnectionClosedOnPurpose)) {
          options.onNotice?.(`error: ${describeError(error)}`);
        }
        return new Response("Internal error.", { status: 500 });
      },
      ...(options.tls ?? {}),
    }, async (request, info) => {
      const response = await handler(request, info);
      // An answer before the body's end (413, 503 of a bound) closes its connection: src/receiver/closing.ts.
      return mustClose(response) ? await closingAnswer(response) : response;
    });
  let server: Deno.HttpServer<Deno.NetAddr>; // the first; serveAgain keeps the current one
  try {
    server = start(options.port);
  } catch (error) {
    handler.close();
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
  // Deno.serve ends its server on an accept error (EMFILE: out of descriptors): the hub serves again on the
  // same port, as dev's receiver does (src/server/serve_again.ts).
  const serving = serveAgain(server, () => start(port), {
    onStop: (error) =>
      options.onNotice?.(`The hub stopped accepting connections (${describeError(error)}); serving again.`),
    onBack: () => options.onNotice?.(`The hub accepts connections again on port ${port}.`),
  });
  const finished = serving.finished.finally(() => store.close());
  return {
    port,
    hostname,
    url: `${scheme}://${host}:${port}`,
    async stop() {
      handler.close();
      await serving.close();
      await finished;
    },
    finished,
  };
}
