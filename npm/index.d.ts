// Types of `hooktap.config.ts` for the npm package `hooktap`: `import type { Config } from "hooktap"`.
// They mirror src/config/types.ts: tests/npm_types_test.ts (the field names) and
// tests/npm_types_fields_test.ts (each field's type) fail when the two drift apart.

/** A captured request, as a `response` function receives it. */
export interface CapturedEvent {
  v: number;
  /** `evt_<YYYYMMDD>_<ULID>`; sorts in arrival order. */
  id: string;
  endpoint: string;
  receivedAt: string;
  method: string;
  path: string;
  query: string;
  headers: [string, string][];
  body: string;
  bodyEncoding: "utf8" | "base64";
  bodySize: number;
  remoteAddr: string;
  params?: Record<string, string>;
  provider?: string;
  type?: string;
  verdict?: Verdict;
}

/** What hooktap answers instead of its plain 200. */
export interface ResponseConfig {
  /** HTTP status. @default 200 */
  status?: number;
  /** Headers, as an object or `[name, value]` pairs. */
  headers?: Record<string, string> | readonly [string, string][];
  /** Body: a string as is, anything else as JSON. @default "" */
  body?: unknown;
  /** Wait this long before answering, in milliseconds (at most 120000). @default 0 */
  delayMs?: number;
}

/**
 * A response function: gets the captured event (with provider, type and verdict) and returns the answer, as
 * a {@linkcode ResponseConfig} or a `Response` (its body read as text), or a Promise of either.
 */
export type ResponseFunction = (
  event: CapturedEvent,
) => ResponseConfig | Response | Promise<ResponseConfig | Response>;

/** `forward`: one target, or a list of targets (each event goes to every one whose `when` matches). */
export type ForwardConfig = ForwardTargetConfig | readonly ForwardTargetConfig[];

/** One forward target. */
export type ForwardTargetConfig = string | {
  /** Unique in the endpoint; names the target in every view and in `replay --undelivered --target`. */
  name?: string;
  /** Which events it takes (the filters of `logs`). @default every event */
  when?: ForwardWhen;
  /** Target URL, `http://` or `https://`. */
  to: string;
  /** `queue` answers the sender at once and delivers after; `relay` answers with the app's answer. @default "queue" */
  mode?: "queue" | "relay";
  /** Longest wait for the app's answer, in milliseconds. @default 30000 */
  timeout?: number;
  /** Deliveries in flight at once while the app keeps up. @default 8 */
  concurrency?: number;
  /** `"arrival"`: events that wait (app down, retry, resume) go one at a time in arrival order; `"parallel"`: they may pass each other. @default "arrival" */
  order?: "arrival" | "parallel";
  /** Retries in queue mode for answers (5xx, 429, 408) and timeouts: `false` for none; an app that is down spends none. @default { attempts: 20, backoff: [1000, 5000, 30000, 60000, 120000, 300000] } */
  retry?: false | { attempts?: number; backoff?: readonly number[] };
  /** Accept any TLS certificate (a local self-signed one). @default false */
  insecure?: boolean;
  /** A PEM file of a CA to trust for this https target (relative to the config file's folder). */
  ca?: string;
};

/** A forward target's rule: which events it takes. A list means any of them (all of them for where, hasHeader). */
export interface ForwardWhen {
  type?: string | readonly string[];
  provider?: string | readonly string[];
  verdict?: VerdictStatus | readonly VerdictStatus[];
  path?: string | readonly string[];
  filterMethod?: string | readonly string[];
  where?: string | readonly string[];
  hasHeader?: string | readonly string[];
}

/** Outcome of checking a request's signature. */
export type VerdictStatus = "valid" | "invalid" | "expired" | "unsigned" | "no-secret";

/** A signature verdict and why. */
export interface Verdict {
  status: VerdictStatus;
  /** The scheme checked: `github-sha256`, `stripe-v1`, ... */
  scheme?: string;
  /** Why, in one sentence, for `invalid` and `expired` (and which secret matched, for `valid`). */
  reason?: string;
}

/** A generic HMAC scheme for a sender hooktap does not know. */
export interface HmacConfig {
  header: string;
  algorithm?: "sha1" | "sha256" | "sha512";
  encoding?: "hex" | "base64";
  prefix?: string;
  signed?: string;
}

/** One endpoint. */
export interface EndpointConfig {
  /** Label of the endpoint, used by `hooktap inspect --endpoint NAME`. */
  name: string;
  /** URL path, starting with `/`: exact (`/webhook`) or a pattern (`/hooks/:provider`). */
  path: string;
  /** The HTTP method (or methods) accepted: `"POST"`, `["POST", "PUT"]`. */
  method: string | readonly string[];
  /** Largest request body, in bytes. @default the config's `maxBodySize` */
  maxBodySize?: number;
  /** Deliver this endpoint's events to your app. */
  forward?: ForwardConfig;
  /** The sender (`github`, `stripe`, ...); detected from each request when absent. */
  provider?: string;
  /** Signing secret, or several (newest first) while rotating; `undefined` (an unset variable) means none. */
  secret?: string | readonly string[] | undefined;
  /** Public key of Ed25519 / ECDSA schemes (Discord, SendGrid, Standard Webhooks v1a). */
  publicKey?: string | undefined;
  /** Meta's `hub.verify_token` for the subscribe check. */
  verifyToken?: string | undefined;
  /** Largest age of a signed timestamp, seconds. @default 300 */
  tolerance?: number;
  /** Answer 401 to an invalid or missing signature. @default false */
  enforce?: boolean;
  hmac?: HmacConfig;
  /** What to answer instead of the plain 200, or a function of the captured event. */
  response?: ResponseConfig | ResponseFunction;
}

/** The default export of `hooktap.config.ts`. */
export interface Config {
  /** Local port to listen on; `0` picks any free port. */
  port: number;
  /** One or more endpoints served on that port. */
  endpoints: readonly EndpointConfig[];
  /** Largest request body accepted, in bytes. @default 26214400 */
  maxBodySize?: number;
  /** The live inspector: `false` for none, or `{ port }`. */
  ui?: UiConfig;
  /** What `hooktap dev` prunes while it runs. */
  retention?: RetentionConfig;
  /** A hub channel `hooktap dev` receives from (`hooktap hub channel create`). */
  hub?: HubConfig;
  /** The receiver's limits: timeouts, open connections, body bytes in flight. */
  server?: ServerConfig;
  /** What `hooktap mcp`, the server coding agents start, may do (docs/agents.md). */
  mcp?: McpConfig;
}

/** The config's `ui` field: the live inspector, `false` for none, or `{ port }`. */
export type UiConfig = false | { port?: number };

/** The config's `retention` field. */
export interface RetentionConfig {
  /** Keep only the newest N events. */
  keep?: number;
  /** Remove events older than this age: `"7d"`, `"12h"`. */
  olderThan?: string;
}

/** The config's `mcp` field. */
export interface McpConfig {
  /** Base URLs `hooktap mcp` may also send to; loopback and the forward targets are always allowed. */
  allowSendTo?: readonly string[];
}

/** The receiver's limits (docs/security.md). */
export interface ServerConfig {
  /** Longest wait for a request's headers, in ms, once a connection opens or a request starts. @default 30000 */
  headersTimeoutMs?: number;
  /** Longest idle time of a keep-alive connection between requests, in ms. @default 5000 */
  keepAliveTimeoutMs?: number;
  /** Longest wait for the next bytes of a body, in ms. @default 60000 */
  bodyTimeoutMs?: number;
  /** Most connections open at once; the excess is closed at once. @default 1000 */
  maxConnections?: number;
  /** Most body bytes held at once, over all requests; past it a request gets 503. @default 134217728 */
  maxBodyBytesInFlight?: number;
}

/** The hub channel of `hooktap dev --hub`. */
export interface HubConfig {
  /** The channel URL from `hooktap hub channel create`: `https://hub.example.com/c/<id>`. */
  url: string;
  /** The channel's client token (better kept in HOOKTAP_HUB_TOKEN than in a committed file). */
  token?: string | undefined;
}

/** Returns `config` as is, typed: `export default defineConfig({ ... })`. */
export declare function defineConfig<const T extends Config>(config: T): T;
