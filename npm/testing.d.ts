// Types of `hooktap/testing` (npm/testing.js): hooktap in a Node test (node:test, vitest, jest).
// The event shape mirrors src/testing/event.ts's ReceivedEvent, the filter src/testing/wait_for.ts's
// EventFilter (tests/npm_testing_test.ts fails when one of theirs is missing here).

// `./index.d.ts`, not `./index.js`: Deno (deno check) resolves the file named; tsc finds the declarations
// either way.
import type { CapturedEvent, EndpointConfig, Verdict, VerdictStatus } from "./index.d.ts";

export type { VerdictStatus };

/** Options of {@linkcode startHooktap}. */
export interface StartOptions {
  /**
   * The endpoints to serve, as in `hooktap.config.ts`, as plain data (a function, such as a `response`
   * function, is refused: they are written to a config file). Validated by hooktap dev itself.
   * @default one endpoint named `default`: any path (`/*`), GET, POST, PUT, PATCH and DELETE
   */
  endpoints?: readonly EndpointConfig[];
  /** Largest request body accepted, in bytes (endpoints may set their own). @default 26214400 (25 MiB) */
  maxBodySize?: number;
  /**
   * The directory dev runs in (its events go to `<cwd>/.hooktap/`); startHooktap writes
   * `hooktap-testing.config.mjs` there and removes it on stop.
   * @default a new temporary directory, removed on stop
   */
  cwd?: string;
  /** Longest wait for dev to listen, in milliseconds. @default 30000 */
  startTimeoutMs?: number;
  /** Variables added to dev's environment (it inherits this process's). */
  env?: Readonly<Record<string, string>>;
}

/** Fields an event must have to match; every given field must match. Any other field is refused. */
export interface EventFilter {
  /** Name of the endpoint. */
  endpoint?: string;
  /** HTTP method, any case. */
  method?: string;
  /** The exact path, or a pattern it matches. */
  path?: string | RegExp;
  /** The provider (`github`, `stripe`). */
  provider?: string;
  /** The provider's event type (`push`, `invoice.paid`). */
  type?: string;
  /** The signature verdict's status. */
  verdict?: VerdictStatus;
}

/** A filter, or a predicate over events. */
export type EventMatch = EventFilter | ((event: ReceivedEvent) => boolean);

/** Options of `waitFor`. */
export interface WaitForOptions {
  /** Longest wait, in milliseconds. @default 5000 */
  timeoutMs?: number;
}

/** One stored webhook: a line of `.hooktap/events.jsonl` with typed accessors. */
export interface ReceivedEvent {
  /** `evt_<YYYYMMDD>_<ULID>`; sorts in arrival order. */
  readonly id: string;
  /** Name of the endpoint it matched. */
  readonly endpoint: string;
  /** When it arrived. */
  readonly receivedAt: Date;
  /** HTTP method, upper case. */
  readonly method: string;
  /** URL path, percent-encoding kept. */
  readonly path: string;
  /** Raw query string without `?` (`""` when none). */
  readonly query: string;
  /** The query parameters. */
  readonly searchParams: URLSearchParams;
  /** Headers as received: `[name, value]` pairs in arrival order, repeats kept, names as sent. */
  readonly rawHeaders: readonly (readonly [string, string])[];
  /** The headers as a web `Headers` (repeats joined with `, `, except `set-cookie`). */
  readonly headers: Headers;
  /** Size of the body in bytes. */
  readonly size: number;
  /** The sender's provider (`github`, `stripe`), when configured or detected. */
  readonly provider?: string;
  /** The provider's event type (`push`, `invoice.paid`). */
  readonly type?: string;
  /** The signature verdict, when the endpoint has a provider or secret. */
  readonly verdict?: Verdict;
  /** Parameters of a pattern path. */
  readonly params?: Readonly<Record<string, string>>;
  /** What the sender was answered, when it was not the plain 200. */
  readonly response?: { status: number; headers?: [string, string][]; body?: string; bodyEncoding?: string };
  /** Sent by `hooktap trigger` through this dev: the event, fault and attempt. */
  readonly trigger?: { event: string; fault?: string; attempt: number };
  /** The record as stored in `.hooktap/events.jsonl`. */
  readonly record: CapturedEvent;
  /** First value of a header (any case), or `undefined`. */
  header(name: string): string | undefined;
  /** Every value of a header (any case), in arrival order. */
  headerAll(name: string): string[];
  /** The exact body bytes (a fresh copy). */
  bytes(): Uint8Array;
  /** The body decoded as UTF-8. */
  text(): string;
  /**
   * The body parsed as JSON.
   * @throws {SyntaxError} naming the event when the body is not JSON.
   */
  json<T = unknown>(): T;
}

/** A running `hooktap dev`; `stop()` (or `await using`) stops it. */
export interface Hooktap extends AsyncDisposable {
  /** Base URL, without a trailing slash: `http://127.0.0.1:41234`. */
  readonly url: string;
  /** The port bound. */
  readonly port: number;
  /** The directory dev runs in. */
  readonly dir: string;
  /** Its data directory (`<dir>/.hooktap`). */
  readonly dataDir: string;
  /** The Deno process's id. */
  readonly pid: number;
  /** The URL of each endpoint by name (a pattern as written). */
  readonly urls: Readonly<Record<string, string>>;
  /**
   * The URL of one endpoint.
   * @throws {Error} naming the endpoints there are, when there is none of that name.
   */
  urlOf(name: string): string;
  /** Every event stored since it started, in arrival order. */
  events(): ReceivedEvent[];
  /**
   * The first event matching `match` stored before or after the call. Rejects with a TypeError for a
   * filter field it does not know, and with an Error when `timeoutMs` passes (listing what did arrive),
   * dev stops, or dev crashes (with what dev printed on stderr).
   */
  waitFor(match?: EventMatch, options?: WaitForOptions): Promise<ReceivedEvent>;
  /** Stops dev (SIGINT; SIGKILL after 5 s), settles pending waits, removes what it wrote. Safe twice. */
  stop(): Promise<void>;
}

/**
 * Starts `hooktap dev --json --no-ui` on a free loopback port, in a new temporary directory (or `cwd`),
 * with a config written from `endpoints`; resolves once it listens.
 * @throws {TypeError} when an option is unknown or an endpoint is not plain data.
 * @throws {Error} with dev's own message when dev refuses the config or exits before it listens.
 *
 * @example
 * ```js
 * import { startHooktap } from "hooktap/testing";
 * const hooktap = await startHooktap({
 *   endpoints: [
 *     { name: "stripe", path: "/stripe", method: "POST", provider: "stripe", secret: "whsec_test" },
 *   ],
 * });
 * try {
 *   // ... make your app send to hooktap.urlOf("stripe") ...
 *   const event = await hooktap.waitFor({ provider: "stripe", verdict: "valid" }, { timeoutMs: 2000 });
 * } finally {
 *   await hooktap.stop();
 * }
 * ```
 */
export function startHooktap(options?: StartOptions): Promise<Hooktap>;

/** Options of {@linkcode trigger}. */
export interface TriggerOptions {
  /**
   * Where to send: a URL (`--to`), or a hooktap from {@linkcode startHooktap}: then the CLI runs in its
   * directory and sends through that dev, as `hooktap trigger` without `--to` does: to its endpoint of the
   * provider, signed with that endpoint's `secret` unless `secret` is given, and the stored event is
   * marked `trigger` ({ event, fault?, attempt }).
   */
  to: string | Hooktap;
  /**
   * The signing secret (Stripe's `whsec_...`, GitHub's secret, ...).
   * @default the endpoint's `secret` when `to` is a hooktap, else unsigned
   */
  secret?: string;
  /** Fields to change, as `--set` changes them: `{ "data.object.amount": 5000 }`. @default {} */
  set?: Readonly<Record<string, unknown>>;
  /** `--set-new`: create the `set` fields the example does not have. @default false */
  setNew?: boolean;
  /** Headers to add or replace, as `-H` does; an empty value removes. @default [] */
  headers?: readonly (readonly [string, string])[];
  /** Longest wait for each answer, in milliseconds. @default 30000 */
  timeoutMs?: number;
  /** Variables added to the CLI's environment. */
  env?: Readonly<Record<string, string>>;
}

/** One delivery as `hooktap trigger --json` prints it. */
export interface TriggeredDelivery {
  provider: string;
  event: string;
  sequence?: string;
  fault?: string;
  attempt: number;
  method: string;
  url: string;
  headers: [string, string][];
  body: string;
  /** How it was signed (`none` when unsigned). */
  signed: string;
  expectRejection: boolean;
  /** 2xx, or refused when the fault meant it to be. */
  ok: boolean;
  status: number | null;
  durationMs: number;
  /** The first 4096 bytes of the answer's body. */
  answer?: string;
  answerProblem?: string;
  error?: string;
  publicKey?: string;
  [field: string]: unknown;
}

/** What {@linkcode trigger} did. */
export interface TriggerResult {
  /** Every delivery `ok`. */
  ok: boolean;
  /** The first delivery's request. */
  request: { method: string; url: string; headers: [string, string][]; body: string };
  /** The first delivery's answer (its body: the first 4096 bytes). */
  response: { status: number; body: string };
  /** Every delivery, in the order sent. */
  deliveries: TriggeredDelivery[];
  /** The public key the app must trust, for key-pair schemes. */
  publicKey?: string;
}

/**
 * Runs `hooktap trigger <provider> <event> --json`: the event from hooktap's catalog, signed as the provider
 * signs it, sent to `options.to`. Resolves when every delivery got an answer (any status: see `ok`).
 * @throws {Error} with the CLI's message when it refuses (unknown provider or event, a `set` path not in
 * the example), or when a delivery got no answer (nothing listens).
 *
 * @example
 * ```js
 * import { startHooktap, trigger } from "hooktap/testing";
 * const { response } = await trigger("stripe", "invoice.paid", {
 *   to: "http://localhost:3000/webhooks/stripe",
 *   secret: "whsec_test",
 * });
 * ```
 */
export function trigger(provider: string, event: string, options: TriggerOptions): Promise<TriggerResult>;

/** Wraps a stored record (a parsed line of `.hooktap/events.jsonl`) as a {@linkcode ReceivedEvent}. */
export function toReceivedEvent(record: CapturedEvent): ReceivedEvent;

/** Default `waitFor` timeout, in milliseconds. */
export const DEFAULT_WAIT_TIMEOUT_MS: number;
/** Default longest wait for dev to listen, in milliseconds. */
export const DEFAULT_START_TIMEOUT_MS: number;
