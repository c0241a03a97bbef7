/**
 * `startReceiver`: hooktap's real receiver on a loopback port, started from
 * a test: two of `hooktap dev`'s parts (src/dev/session.ts), the store when
 * a data directory is given and the listener, composed on one stack
 * (src/dev/lifecycle.ts); none of the parts a test does not need (control
 * socket, unmatched log, forwarding, doctor's probe, the header check) is
 * started. Events go to memory, or through the durable writer into a data
 * directory; `waitFor` waits for one. Everything it opens (socket, files, lock, timers) is closed by
 * `close()` / `await using`, so `deno test`'s sanitizers pass.
 * @module
 */
import type { Endpoint, EndpointConfig } from "../config/types.ts";
import { DEFAULT_MAX_BODY_SIZE } from "../config/types.ts";
import { validateConfig } from "../config/validate.ts";
import { ConfigError, ServeError } from "../errors.ts";
import { compose } from "../dev/lifecycle.ts";
import { sinkFor, startListener } from "../dev/session.ts";
import { createRouter, isPattern } from "../route/router.ts";
import { expandTarget } from "../route/expand.ts";
import { openStoreForWriting } from "../store/write/open.ts";
import type { RequestOutcome } from "../receiver/handler.ts";
import type { CapturedEvent } from "../event/record.ts";
import type { Router } from "../route/router.ts";
import { storePaths } from "../store/paths.ts";
import { type ReceivedEvent, toReceivedEvent } from "./event.ts";
import {
  arrivals,
  createWaits,
  describeMatch,
  type EventMatch,
  filterProblem,
  matches,
  type WaitForOptions,
} from "./wait_for.ts";

/** Options of {@linkcode startReceiver}. */
export interface ReceiverOptions {
  /**
   * The endpoints to serve, as in `hooktap.config.ts` (validated the same way).
   * @default one endpoint named `default` that accepts any method on any path
   */
  endpoints?: readonly EndpointConfig[];
  /**
   * Interface to bind.
   * @default "127.0.0.1"
   */
  hostname?: string;
  /**
   * Port to bind; 0 picks a free one.
   * @default 0
   */
  port?: number;
  /**
   * A data directory to append events to (`.hooktap` layout: `events.jsonl`,
   * durable before each 200). Name it `.hooktap` and `hooktap logs`, run in its parent folder, reads them.
   * @default none: events are kept in memory only
   */
  dir?: string;
  /**
   * Largest request body accepted, in bytes (endpoints may set their own).
   * @default 26214400 (25 MiB)
   */
  maxBodySize?: number;
}

/** A running test receiver; `await using` closes it. */
export interface Receiver extends AsyncDisposable {
  /** Base URL, without a trailing slash: `http://127.0.0.1:41234`. */
  readonly url: string;
  /** The port bound. */
  readonly port: number;
  /** The URL of each endpoint by name (the base URL and the endpoint's path; a pattern as written). */
  readonly urls: Readonly<Record<string, string>>;
  /**
   * The URL of one endpoint. For a pattern path (`/hooks/:provider`, `/files/*`) give the parameters:
   * `urlOf("hooks", { provider: "github" })` (`*` is `"0"`, the next `"1"`); they are percent-encoded.
   * @throws {Error} naming the endpoints there are, when there is none of that name, or the parameters a
   * pattern needs, when one is missing.
   */
  urlOf(name: string, params?: Readonly<Record<string, string>>): string;
  /** Every event received (since the last `clear()`), in arrival order. */
  events(): ReceivedEvent[];
  /**
   * The first event matching `match` received before or after the call.
   * Rejects when `timeout` passes (listing what did arrive) or the receiver closes.
   */
  waitFor(match?: EventMatch, options?: WaitForOptions): Promise<ReceivedEvent>;
  /** Forgets the events received so far (a data directory keeps them). */
  clear(): void;
  /** Stops listening, settles pending waits, closes files. Safe to call twice. */
  close(): Promise<void>;
}

const ANY_ENDPOINT_NAME = "default";

function resolveEndpoints(
  options: ReceiverOptions,
): { endpoints: Endpoint[]; router?: Router } {
  const maxBodySize = options.maxBodySize ?? DEFAULT_MAX_BODY_SIZE;
  if (options.endpoints === undefined) {
    if (!Number.isSafeInteger(maxBodySize) || maxBodySize < 0) {
      throw new ConfigError(`startReceiver: maxBodySize must be a whole number of bytes, got ${maxBodySize}`);
    }
    const any: Endpoint = { name: ANY_ENDPOINT_NAME, path: "/", methods: ["*"], maxBodySize };
    const router: Router = {
      match: () => ({ kind: "matched", endpoint: any }),
      update() {
        throw new Error("startReceiver's catch-all endpoint is not updated");
      },
      endpoints: [any],
    };
    return { endpoints: [any], router };
  }
  try {
    const input = { port: 0, endpoints: options.endpoints, maxBodySize };
    return { endpoints: [...validateConfig(input, null).endpoints] };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const issues = error.issues.map((i) => i.replace(/^maxBodySize/, "options.maxBodySize"));
    const n = issues.length;
    throw new ConfigError(
      `startReceiver: the endpoints have ${n} problem${n === 1 ? "" : "s"}:\n${
        issues.map((i) => `  - ${i}`).join("\n")
      }`,
      issues,
      { cause: error },
    );
  }
}

/** The listener's words for `hooktap dev` (its flags, hooktap.config.ts), in the library's: its options. */
function _libraryWording(text: string): string {
  return text
    .replace(
      /--port or `port` in hooktap\.config\.ts/g,
      "startReceiver's `port` option (0 picks a free port)",
    )
    .replace(
      /maxBodySize in hooktap\.config\.ts/g,
      "startReceiver's `maxBodySize` option (or the endpoint's)",
    );
}

/** The URL of a pattern endpoint with `params` filled in, or an error naming those it still needs. */
function _patternUrl(
  name: string,
  path: string,
  url: string,
  params: Readonly<Record<string, string>>,
): string {
  let wildcard = 0;
  const needed = [...path.matchAll(/:([A-Za-z_$][A-Za-z0-9_$]*)|\*/g)].map((m) => m[1] ?? String(wildcard++));
  const missing = needed.filter((key) => params[key] === undefined);
  const filled = expandTarget(url, params);
  if (missing.length === 0 && new URLPattern({ pathname: path }).test(filled)) return filled;
  const example = `{ ${
    needed.map((key) => `${/^\d/.test(key) ? JSON.stringify(key) : key}: "…"`).join(", ")
  } }`;
  throw new Error(
    `startReceiver's endpoint ${JSON.stringify(name)} has the pattern ${path}: ${
      missing.length > 0
        ? `give urlOf its parameters, urlOf(${JSON.stringify(name)}, ${example}) (missing: ${
          missing.join(", ")
        })`
        : `${filled} does not match it; build the URL from rx.url`
    }.`,
  );
}

/**
 * Starts hooktap's receiver on a loopback port for a test. Point the app
 * under test at `rx.url` (or `rx.urlOf(name)`), then `waitFor` what it sends.
 * @throws {ConfigError} when an endpoint is invalid, with each problem's field path, or the port is not one.
 * @throws {ServeError} when the port cannot be bound.
 * @throws {StoreError} when `dir` cannot be opened or another hooktap writes to it.
 *
 * @example Check what your app sends
 * ```ts
 * import { startReceiver } from "@hooktap/hooktap/testing";
 * await using rx = await startReceiver();
 * await fetch(`${rx.url}/orders`, { method: "POST", body: '{"id":1}' }).then((r) => r.body?.cancel());
 * const event = await rx.waitFor({ method: "POST", path: "/orders" }, { timeout: 2000 });
 * console.log(event.json()); // { id: 1 }
 * ```
 *
 * @example Serve configured endpoints
 * ```ts
 * import { startReceiver } from "@hooktap/hooktap/testing";
 * await using rx = await startReceiver({
 *   endpoints: [{ name: "github", path: "/github", method: "POST" }],
 * });
 * console.log(rx.urlOf("github")); // http://127.0.0.1:41234/github
 * ```
 */
export async function startReceiver(options: ReceiverOptions = {}): Promise<Receiver> {
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(
      `startReceiver: port must be a whole number from 0 to 65535, got ${port}: leave it out (or 0) for a free port`,
    );
  }
  const { endpoints, router } = resolveEndpoints(options);
  let events: ReceivedEvent[] = [];
  let refused: RequestOutcome[] = [];
  let url = "";
  let closed = false;
  let closing: Promise<void> | undefined;

  const waits = createWaits((m, ms) =>
    `waitFor timed out after ${ms} ms: no event matched ${describeMatch(m)}.\n${
      arrivals(url, events, refused)
    }`
  );
  const onStored = (record: CapturedEvent) => {
    // The handler's header list is the runtime's own per request: keep a copy.
    const event = toReceivedEvent({
      ...record,
      headers: record.headers.map(([k, v]): [string, string] => [k, v]),
    });
    events.push(event);
    waits.offer(event);
  };
  const running = await compose(async (stack) => {
    const store = options.dir === undefined
      ? undefined
      : stack.use(await openStoreForWriting(storePaths(options.dir)));
    const listening = stack.use(
      await startListener({
        endpoints,
        router: router ?? createRouter(endpoints),
        sink: sinkFor({ writer: store?.writer, onStored }).sink,
        hostname: options.hostname ?? "127.0.0.1",
        port,
        drainTimeoutMs: 2000,
        closeTimeoutMs: 1000,
        onOutcome(outcome) {
          if (outcome.id === undefined && outcome.status >= 400) {
            refused.push(
              outcome.reason === undefined
                ? outcome
                : { ...outcome, reason: _libraryWording(outcome.reason) },
            );
            if (refused.length > 100) refused.shift();
          }
        },
      }),
    );
    await store?.describe({ pid: Deno.pid, startedAt: new Date().toISOString() });
    return listening;
  }).catch((error: unknown) => {
    if (error instanceof ServeError) throw new ServeError(_libraryWording(error.message), { cause: error });
    throw error;
  });
  const session = running.value;
  const host = session.hostname.includes(":") ? `[${session.hostname}]` : session.hostname;
  url = `http://${host}:${session.port}`;
  const urls: Record<string, string> = {};
  for (const e of endpoints) urls[e.name] = `${url}${e.path}`;

  const close = (): Promise<void> => {
    closing ??= (async () => {
      closed = true;
      try {
        await running.stop();
        await session.finished;
      } finally {
        waits.closeAll((m) =>
          `The receiver closed before an event matched ${describeMatch(m)}.\n${
            arrivals(url, events, refused)
          }`
        );
      }
    })();
    return closing;
  };

  return {
    url,
    port: session.port,
    urls,
    urlOf(name, params) {
      const found = urls[name];
      if (found === undefined) {
        throw new Error(
          `startReceiver has no endpoint named ${JSON.stringify(name)}; it has ${
            Object.keys(urls).map((n) => JSON.stringify(n)).join(", ")
          }.`,
        );
      }
      const path = endpoints.find((e) => e.name === name)?.path ?? "/";
      return isPattern(path) ? _patternUrl(name, path, found, params ?? {}) : found;
    },
    events: () => [...events],
    waitFor(m = {}, waitOptions = {}) {
      const problem = filterProblem(m);
      if (problem !== undefined) return Promise.reject(new TypeError(problem));
      if (closed) {
        const hit = events.find((e) => matches(m, e));
        if (hit !== undefined) return Promise.resolve(hit);
        return Promise.reject(
          new Error(
            `waitFor on a closed receiver: no event matched ${describeMatch(m)}.\n${
              arrivals(url, events, refused)
            }`,
          ),
        );
      }
      return waits.wait(m, waitOptions, events);
    },
    clear() {
      events = [];
      refused = [];
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
