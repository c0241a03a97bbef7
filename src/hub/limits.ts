/**
 * The hub's limits and their defaults (every one a flag of `hub serve`,
 * documented in docs/hub.md), and the per-channel request rate: a token
 * bucket kept in memory (per process or isolate).
 * @module
 */

import { MAX_WIRE_BODY } from "./wire.ts";

/**
 * The largest `maxBodySize` a hub takes: what dev's client accepts in one event (`MAX_WIRE_BODY`). A larger
 * body stored at the hub would be refused by every client, and each would stop at it, catching up no further.
 */
export const MAX_BODY_SIZE_LIMIT = MAX_WIRE_BODY;

/** The hub's limits. */
export interface HubLimits {
  /**
   * Largest body stored (413 above).
   * @default 10 MiB
   */
  maxBodySize: number;
  /**
   * Requests per minute a channel accepts (429 with Retry-After above); 0 = no limit. The bucket holds one
   * minute's worth, so a burst of that many passes at once.
   * @default 12000
   */
  ratePerMinute: number;
  /**
   * Channels the hub holds (create answers 403 above).
   * @default 1000
   */
  maxChannels: number;
  /**
   * Clients registered per channel (a new one is refused with 403 above).
   * @default 32
   */
  maxClients: number;
  /**
   * Polls held open at once per channel token (429 above).
   * @default 16
   */
  maxConnections: number;
  /**
   * Bytes a channel's events may hold (507 when nothing can be dropped).
   * @default 256 MiB
   */
  maxChannelBytes: number;
  /**
   * How long an event is kept for a client that has not acknowledged it.
   * @default 7 days
   */
  retentionMs: number;
  /**
   * Bytes of all bodies being received at once, every channel and sender together (503 + Retry-After above).
   * @default 128 MiB
   */
  maxBytesInFlight: number;
  /**
   * Bytes of the bodies being received at once for one channel: one channel's stalled uploads leave the rest
   * of the hub's budget to the other channels.
   * @default 32 MiB
   */
  maxBytesInFlightPerChannel: number;
  /**
   * Bytes of the bodies being received at once from one client address (behind a reverse proxy, every sender
   * has the proxy's address).
   * @default 64 MiB
   */
  maxBytesInFlightPerAddress: number;
  /**
   * How long a sender is held for a connected client's answer (a URL challenge, a custom response) before
   * it gets the hub's own `200`: Slack gives up after 3 s, so a longer wait only serves slow links.
   * @default 5 s
   */
  answerTimeoutMs: number;
}

/**
 * `hub serve`'s default port: below dev's default (8787), because dev's inspector takes the port after dev's
 * (8788) and walks up from there when it is busy; so `hub serve` and `dev` with their defaults never collide.
 */
export const DEFAULT_HUB_PORT = 8786;

/** The defaults. */
export const DEFAULT_LIMITS: HubLimits = {
  maxBodySize: 10 * 1024 * 1024,
  ratePerMinute: 12_000,
  maxChannels: 1000,
  maxClients: 32,
  maxConnections: 16,
  maxChannelBytes: 256 * 1024 * 1024,
  retentionMs: 7 * 24 * 3_600_000,
  maxBytesInFlight: 128 * 1024 * 1024,
  maxBytesInFlightPerChannel: 32 * 1024 * 1024,
  maxBytesInFlightPerAddress: 64 * 1024 * 1024,
  answerTimeoutMs: 5000,
};

/** A per-key request rate. */
export interface RateLimiter {
  /** Takes one request for `key`: `undefined` when allowed, else the seconds to wait. */
  take(key: string): number | undefined;
}

/** A token bucket per key: `perMinute` a minute, bursts of up to `perMinute`. */
export function createRateLimiter(perMinute: number, now: () => number = Date.now): RateLimiter {
  const buckets = new Map<string, { tokens: number; at: number }>();
  const perMs = perMinute / 60_000;
  return {
    take(key) {
      if (perMinute <= 0) return undefined;
      const t = now();
      const b = buckets.get(key) ?? { tokens: perMinute, at: t };
      b.tokens = Math.min(perMinute, b.tokens + (t - b.at) * perMs);
      b.at = t;
      if (buckets.size > 10_000 && !buckets.has(key)) {
        // Bounded: full buckets are forgotten (they would be full again anyway).
        for (const [k, v] of buckets) if (v.tokens + (t - v.at) * perMs >= perMinute) buckets.delete(k);
      }
      buckets.set(key, b);
      if (b.tokens >= 1) {
        b.tokens -= 1;
        return undefined;
      }
      return Math.max(1, Math.ceil((1 - b.tokens) / perMs / 1000));
    },
  };
}

/**
 * The limits in `HOOKTAP_HUB_LIMITS` (Deno Deploy has no flags): a JSON
 * object of {@linkcode HubLimits} fields; those not given keep their defaults.
 * @throws {Error} naming the field, for an unknown one or a value that is not a positive number (the rate may be 0: off).
 */
export function limitsFromEnv(text: string | undefined): Partial<HubLimits> {
  if (text === undefined || text.trim() === "") return {};
  const value: unknown = JSON.parse(text);
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new Error('HOOKTAP_HUB_LIMITS must be a JSON object like {"retentionMs": 86400000}');
  }
  const out: Partial<HubLimits> = {};
  for (const [key, n] of Object.entries(value)) {
    if (!(key in DEFAULT_LIMITS)) {
      throw new Error(
        `HOOKTAP_HUB_LIMITS: unknown limit "${key}" (known: ${Object.keys(DEFAULT_LIMITS).join(", ")})`,
      );
    }
    if (typeof n !== "number" || !Number.isFinite(n) || n < 0 || (n === 0 && key !== "ratePerMinute")) {
      throw new Error(`HOOKTAP_HUB_LIMITS: ${key} must be a positive number`);
    }
    if (key === "maxBodySize" && n > MAX_BODY_SIZE_LIMIT) {
      throw new Error(
        `HOOKTAP_HUB_LIMITS: maxBodySize must be at most ${MAX_BODY_SIZE_LIMIT} (64 MiB): dev takes events up to that size`,
      );
    }
    out[key as keyof HubLimits] = n;
  }
  return out;
}
