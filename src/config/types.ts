/**
 * The config's two shapes: what a user writes (`Config`) and what the
 * loader hands to the rest of hooktap (`ResolvedConfig`, every field filled).
 * @module
 */
import type { Retention, RetentionConfig } from "./retention.ts";

/** One endpoint as written in `hooktap.config.ts`. */
export interface EndpointConfig {
  /** Label of the endpoint, used by `hooktap inspect --endpoint NAME`. */
  name: string;
  /** URL path the endpoint answers, starting with `/`. Matched exactly. */
  path: string;
  /** The HTTP method (or methods) accepted, any case: `"POST"`, `["POST", "PUT"]`. */
  method: string | readonly string[];
  /**
   * Largest request body this endpoint accepts, in bytes.
   * @default the config's `maxBodySize`
   */
  maxBodySize?: number;
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
  /** What `hooktap dev` prunes while it runs (at start, then every 10 minutes). */
  retention?: RetentionConfig;
}

/** An endpoint after validation: method names upper-cased, path normalised. */
export interface Endpoint {
  readonly name: string;
  readonly path: string;
  readonly methods: readonly string[];
  /** Largest body accepted, in bytes (the endpoint's own, or the config's). */
  readonly maxBodySize: number;
}

/** The config after validation, with every default filled in. */
export interface ResolvedConfig {
  readonly port: number;
  readonly endpoints: readonly Endpoint[];
  readonly maxBodySize: number;
  /** What `dev` prunes while it runs; absent when not set. */
  readonly retention?: Retention;
  /** Absolute path of the file it came from, or `null` for the built-in starter config. */
  readonly file: string | null;
  /** Things that load but look wrong (a method that looks like a typo), for `dev` to print. */
  readonly warnings: readonly string[];
}

/** Default `maxBodySize`: 25 MiB. */
export const DEFAULT_MAX_BODY_SIZE = 25 * 1024 * 1024;

/** Config file name looked up in the working directory. */
export const CONFIG_FILE_NAME = "hooktap.config.ts";
