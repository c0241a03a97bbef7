/**
 * The config's two shapes: what a user writes (`Config`) and what the
 * loader hands to the rest of hooktap (`ResolvedConfig`, every field filled).
 *
 * `mod.ts` exports these, so what this module imports is what a config file
 * that imports the types downloads and analyses (at most 25 modules, a test
 * holds it). It imports types from leaves and from the small checkers of
 * src/config/ (ui, server, hub, mcp, response); the shapes whose checker
 * imports more (`forward` and its `when`, `retention`, `hmac`) are defined
 * here and the checkers import them.
 * @module
 */
import type { ResolvedForward, Retention } from "../ports.ts";
import type { VerdictStatus } from "../event/record.ts";
import type { ResolvedUi, UiConfig } from "./ui.ts";
import type { ResolvedServer, ServerConfig } from "./server.ts";
import type { ProviderSettings } from "../providers/types.ts";
import type { ResolvedResponse, ResponseConfig, ResponseFunction } from "./response.ts";
import type { HubConfig, ResolvedHub } from "./hub.ts";
import type { McpConfig, ResolvedMcp } from "./mcp.ts";

/** One endpoint as written in `hooktap.config.ts`. */
export interface EndpointConfig {
  /** Label of the endpoint, used by `hooktap inspect --endpoint NAME`. */
  name: string;
  /**
   * URL path the endpoint answers, starting with `/`: an exact path (`/webhook`) or a URL
   * pattern (`/hooks/:provider`, `/github/*`). Exact paths win over patterns; patterns are
   * tried in config order.
   */
  path: string;
  /** The HTTP method (or methods) accepted, any case: `"POST"`, `["POST", "PUT"]`. */
  method: string | readonly string[];
  /**
   * Largest request body this endpoint accepts, in bytes.
   * @default the config's `maxBodySize`
   */
  maxBodySize?: number;
  /** Deliver this endpoint's events to your app: a URL, `{ name, to, when, mode, timeout, concurrency, order, retry, insecure, ca }`, or a list of targets. */
  forward?: ForwardConfig;
  /** The sender (`github`, `stripe`, ...); detected from each request when absent. */
  provider?: string;
  /**
   * Signing secret, or several (newest first) while rotating. `Deno.env.get(...)` needs --allow-env;
   * `undefined` (an unset variable) means no secret.
   */
  secret?: string | readonly string[] | undefined;
  /** Public key of Ed25519 / ECDSA schemes (Discord, SendGrid, Standard Webhooks v1a). */
  publicKey?: string | undefined;
  /** Meta's `hub.verify_token` for the subscribe check. */
  verifyToken?: string | undefined;
  /** Largest age of a signed timestamp, seconds. @default 300 */
  tolerance?: number;
  /** Answer 401 to an invalid or missing signature, like a production app. @default false */
  enforce?: boolean;
  /** A generic HMAC scheme for a sender hooktap does not know. */
  hmac?: HmacConfig;
  /** What to answer instead of the plain 200, or a function of the captured event. */
  response?: ResponseConfig | ResponseFunction;
}

/** `forward` as a user writes it: one target, or a list of targets (each event goes to every one whose `when` matches). */
export type ForwardConfig = ForwardTargetConfig | readonly ForwardTargetConfig[];

/** One forward target as a user writes it. */
export type ForwardTargetConfig = string | {
  /** Unique in the endpoint; names the target in every view and in `replay --undelivered --target`. @default derived from `to` (`localhost:3000/hook`) */
  name?: string;
  /** Which events it takes (the filters of `logs`: type, provider, verdict, path, filterMethod, where, hasHeader). @default every event */
  when?: ForwardWhen;
  /** Target URL, `http://` or `https://`. The original query string is added when it has none. */
  to: string;
  /** `queue` answers the sender at once and delivers after; `relay` answers with the app's answer. @default "queue" */
  mode?: "queue" | "relay";
  /** Longest wait for the app's answer, in milliseconds. @default 30000 */
  timeout?: number;
  /** Deliveries in flight at once while the app keeps up (queue mode; refused with `relay`). @default 8 */
  concurrency?: number;
  /**
   * `"arrival"`: events that wait (the app down, a retry, a resume after a restart, a hub catch-up) go one at
   * a time in the order hooktap received them, a retry holding the line (live events start in arrival order,
   * up to `concurrency` in flight); `"parallel"`: up to `concurrency` at once and a retry lets later events
   * pass. Queue mode; refused with `relay`. @default "arrival"
   */
  order?: "arrival" | "parallel";
  /**
   * Retries in queue mode, for answers (5xx, 429, 408) and attempts without an answer in time: `false` for
   * none. An app that is down (nothing listens) spends no attempt. The last wait repeats. Refused with `relay`.
   * @default { attempts: 20, backoff: [1000, 5000, 30000, 60000, 120000, 300000] } (about 74 minutes)
   */
  retry?: false | { attempts?: number; backoff?: readonly number[] };
  /** Accept any TLS certificate (a local self-signed one). @default false */
  insecure?: boolean;
  /** A PEM file of a CA to trust for this https target (relative to the config file's folder). */
  ca?: string;
};

/** `when` as a user writes it. */
export interface ForwardWhen {
  /**
   * Event type, exact or a prefix up to a `.`, `/` or space (`issues` takes `issues.opened`, `orders` takes
   * Shopify's `orders/create`); a list: any of them.
   */
  type?: string | readonly string[];
  /** Sender (`github`, `stripe`, ...); a list: any of them. */
  provider?: string | readonly string[];
  /** Signature verdict (`valid`, `invalid`, `expired`, `unsigned`, `no-secret`); a list: any of them. */
  verdict?: VerdictStatus | readonly VerdictStatus[];
  /** Request path, exact or a prefix ending in `*` (`/hooks/*`); a list: any of them. */
  path?: string | readonly string[];
  /** HTTP method (`--filter-method`); a list: any of them. */
  filterMethod?: string | readonly string[];
  /** `a.b=v`, `a.b!=v` or `a.b` over the JSON body (`--where`); a list: all of them. */
  where?: string | readonly string[];
  /** `Name=value` or `Name` (`--has-header`); a list: all of them. */
  hasHeader?: string | readonly string[];
}

/** `retention` as the user writes it. */
export interface RetentionConfig {
  /** Keep only the newest N events. */
  keep?: number;
  /** Remove events older than this age: `"7d"`, `"12h"`. */
  olderThan?: string;
}

/** The generic HMAC scheme as written in the config. */
export interface HmacConfig {
  /** Header carrying the signature, like `"X-Signature"`. */
  header: string;
  /** @default "sha256" */
  /** Hash of the HMAC. @default "sha256" */
  algorithm?: "sha1" | "sha256" | "sha512";
  /** @default "hex" */
  /** Encoding of the signature. @default "hex" */
  encoding?: "hex" | "base64";
  /** Text before the signature, like `"sha256="`. @default "" */
  prefix?: string;
  /** What is signed: `{body}`, `{method}`, `{url}`, `{header:Name}` and literal text. @default "{body}" */
  signed?: string;
}

/** The default export of `hooktap.config.ts`. */
export interface Config {
  /** Local port to listen on; `0` picks any free port. The starter config uses 8787. */
  port: number;
  /** One or more endpoints served on that port. */
  endpoints: readonly EndpointConfig[];
  /**
   * Largest request body accepted, in bytes; a larger one is answered 413.
   * @default 26214400 (25 MiB, GitHub's maximum payload)
   */
  maxBodySize?: number;
  /**
   * The live inspector `hooktap dev` serves on 127.0.0.1: `false` for none, or `{ port }`.
   * @default { port: the receiver's port + 1 }
   */
  ui?: UiConfig;
  /** What `hooktap dev` prunes while it runs (at start, then every 10 minutes). */
  retention?: RetentionConfig;
  /** The hub channel `hooktap dev` connects to (docs/hub.md); `--hub`/`--hub-token` win. */
  hub?: HubConfig;
  /** The receiver's limits: timeouts, open connections, body bytes in flight (docs/security.md). */
  server?: ServerConfig;
  /** What `hooktap mcp`, the server coding agents start, may do (docs/agents.md). */
  mcp?: McpConfig;
}

/** An endpoint after validation: method names upper-cased, path normalised. */
export interface Endpoint {
  /** Label of the endpoint. */
  readonly name: string;
  /** Path or URL pattern, starting with `/`. */
  readonly path: string;
  /** HTTP methods accepted, upper-cased (`*`: any). */
  readonly methods: readonly string[];
  /** Largest body accepted, in bytes (the endpoint's own, or the config's). */
  readonly maxBodySize: number;
  /** Its first forward target (the default `--to` of `replay`), when the config has one. */
  readonly forward?: ResolvedForward;
  /** Every forward target, in config order (`forward` is the first); each takes the events its `when` selects. */
  readonly targets?: readonly ResolvedForward[];
  /** Signing settings, when the endpoint declares any. */
  readonly signing?: ProviderSettings;
  /** The custom answer, when the endpoint has one. */
  readonly response?: ResolvedResponse | ResponseFunction;
}

/** The config after validation, with every default filled in. */
export interface ResolvedConfig {
  /** Port to listen on (`0`: any free port). */
  readonly port: number;
  /** The endpoints, in config order. */
  readonly endpoints: readonly Endpoint[];
  /** Largest request body accepted, in bytes. */
  readonly maxBodySize: number;
  /** The inspector: off, or its port (`null`: the receiver's port + 1). */
  readonly ui: ResolvedUi;
  /** The receiver's limits, defaults filled. */
  readonly server: ResolvedServer;
  /** What `dev` prunes while it runs; absent when not set. */
  readonly retention?: Retention;
  /** The hub channel to connect to; absent when not set. */
  readonly hub?: ResolvedHub;
  /** What `hooktap mcp` may do; absent when not set. */
  readonly mcp?: ResolvedMcp;
  /** Absolute path of the file it came from, or `null` for the built-in starter config. */
  readonly file: string | null;
  /** Things that load but look wrong (a method that looks like a typo), for `dev` to print. */
  readonly warnings: readonly string[];
}

/** Default `maxBodySize`: 25 MiB. */
export const DEFAULT_MAX_BODY_SIZE = 25 * 1024 * 1024;

/** Config file name looked up in the working directory. */
export const CONFIG_FILE_NAME = "hooktap.config.ts";
