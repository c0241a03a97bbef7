/**
 * The config's `server` field: the receiver's limits against clients that
 * hold connections, stall or flood. The defaults are far past what a real
 * sender does; a value of 0 turns a timeout off. Pure.
 * @module
 */
import { checkKeys, isRecord, type Issues, optionalCount, show } from "./_check.ts";

/** `server` as a user writes it. */
export interface ServerConfig {
  /** Longest wait for a request's headers, in ms, once a connection opens or a request starts. @default 30000 */
  headersTimeoutMs?: number;
  /** Longest idle time of a keep-alive connection between requests, in ms. @default 5000 */
  keepAliveTimeoutMs?: number;
  /** Longest wait for the next bytes of a body, in ms. @default 60000 */
  bodyTimeoutMs?: number;
  /** Most connections open at once; the excess is closed at once. @default 1000 */
  maxConnections?: number;
  /** Most body bytes held at once, over all requests; past it a request gets 503 with Retry-After. @default 134217728 (128 MiB) */
  maxBodyBytesInFlight?: number;
}

/** `server` resolved, every field filled. */
export interface ResolvedServer {
  /** Longest wait for a request's headers, in ms. */
  readonly headersTimeoutMs: number;
  /** Longest idle time of a keep-alive connection, in ms. */
  readonly keepAliveTimeoutMs: number;
  /** Longest wait for the next bytes of a body, in ms. */
  readonly bodyTimeoutMs: number;
  /** Most connections open at once. */
  readonly maxConnections: number;
  /** Most body bytes held at once, over all requests. */
  readonly maxBodyBytesInFlight: number;
}

/** The defaults of `server`. */
export const DEFAULT_SERVER: ResolvedServer = {
  headersTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  bodyTimeoutMs: 60_000,
  maxConnections: 1000,
  maxBodyBytesInFlight: 128 * 1024 * 1024,
};

/** Fields of `server`. */
export const SERVER_FIELDS: readonly string[] = Object.keys(DEFAULT_SERVER);

/** Checks `server`; `maxBodySize` is the largest an endpoint accepts (the bytes in flight must hold one). */
export function checkServer(value: unknown, maxBodySize: number, issues: Issues): ResolvedServer {
  if (value === undefined) {
    return {
      ...DEFAULT_SERVER,
      maxBodyBytesInFlight: Math.max(DEFAULT_SERVER.maxBodyBytesInFlight, maxBodySize),
    };
  }
  if (!isRecord(value)) {
    issues.push(`server must be an object like { bodyTimeoutMs: 60000 }, got ${show(value)}`);
    return DEFAULT_SERVER;
  }
  checkKeys(value, SERVER_FIELDS, "server", "a server", issues);
  const count = (key: keyof ResolvedServer, fix: string) =>
    optionalCount(value[key], `server.${key}`, fix, issues, DEFAULT_SERVER[key]);
  const headersTimeoutMs = count("headersTimeoutMs", "use 30000 for 30 s, 0 for none");
  const keepAliveTimeoutMs = count("keepAliveTimeoutMs", "use 5000 for 5 s, 0 for none");
  const bodyTimeoutMs = count("bodyTimeoutMs", "use 60000 for 60 s, 0 for none");
  const maxConnections = count("maxConnections", "use 1000");
  if (value.maxConnections !== undefined && maxConnections < 1) {
    issues.push(`server.maxConnections must be at least 1, got ${show(value.maxConnections)}: use 1000`);
  }
  const maxBodyBytesInFlight = value.maxBodyBytesInFlight === undefined
    ? Math.max(DEFAULT_SERVER.maxBodyBytesInFlight, maxBodySize)
    : count("maxBodyBytesInFlight", "use 134217728 for 128 MiB");
  if (maxBodyBytesInFlight < maxBodySize) {
    issues.push(
      `server.maxBodyBytesInFlight (${maxBodyBytesInFlight}) must be at least the largest maxBodySize ` +
        `(${maxBodySize}), or that body could never be received: raise it to ${maxBodySize} or more`,
    );
  }
  return { headersTimeoutMs, keepAliveTimeoutMs, bodyTimeoutMs, maxConnections, maxBodyBytesInFlight };
}
