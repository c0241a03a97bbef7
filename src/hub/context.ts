/**
 * The hub's state, built once per handler and handed to every route: the
 * store, the limits, the byte budgets, the rate limiter, the presence of
 * clients, the channels' storage, the senders waiting for an answer, and
 * the clock.
 * @module
 */
import { BodyBudget } from "../receiver/budget.ts";
import { StallWatch } from "../receiver/stall.ts";
import type { HubStore } from "./kv_store.ts";
import { type HubBudgets, KeyedBudget } from "./budgets.ts";
import { createRateLimiter, DEFAULT_LIMITS, type HubLimits, type RateLimiter } from "./limits.ts";
import { CONNECTED_MS, Presence } from "./presence.ts";
import { ChannelSpace } from "./space.ts";
import { hashToken } from "./token.ts";
import type { WireAnswer } from "./wire.ts";

/** Options of `createHubHandler` (src/hub/server.ts). */
export interface HubOptions {
  store: HubStore;
  /** Admin token; without one, `POST /api/channels` answers 403. */
  adminToken?: string | undefined;
  /** Base of channel URLs (`https://hub.example.com`); default: the request's origin. */
  publicUrl?: string | undefined;
  /**
   * Largest body stored.
   * @default 10 MiB
   */
  maxBodySize?: number;
  /**
   * Longest wait for a connected client's answer before the sender gets the hub's 200.
   * @default 5000
   */
  answerTimeoutMs?: number;
  /**
   * Longest a poll is held open waiting for an event.
   * @default 25000
   */
  pollWaitMs?: number;
  /** The limits (issue 28); each one missing takes its default ({@linkcode DEFAULT_LIMITS}). */
  limits?: Partial<HubLimits>;
  /** @default Date.now */
  now?: () => number;
  /**
   * Longest a body may go without a byte arriving (408 after).
   * @default 30000
   */
  bodyTimeoutMs?: number;
  /**
   * Bytes of all bodies being received at once (503 with Retry-After above; at least the body limit).
   * Overrides `limits.maxBytesInFlight` (kept for callers from before the per-channel and per-address bounds).
   * @default 128 MiB
   */
  maxBodyBytesInFlight?: number;
}

/** Everything a route reads or changes, in one object. */
export interface HubContext {
  readonly store: HubStore;
  /** The limits, each one given or its default (`maxBodySize` and `answerTimeoutMs` as resolved). */
  readonly limits: HubLimits;
  /** The clock events and retention are judged by. */
  readonly now: () => number;
  /** Base of channel URLs, or `undefined`: the request's origin. */
  readonly publicUrl: string | undefined;
  /** The admin token's hash, or `undefined`: the admin API is off. */
  readonly adminHash: Promise<Uint8Array> | undefined;
  readonly pollWaitMs: number;
  readonly bodyTimeoutMs: number;
  /** The bounds on body bytes in flight: per channel, per address, for the hub. */
  readonly budgets: HubBudgets;
  readonly stall: StallWatch;
  /** Requests per minute, per channel. */
  readonly rate: RateLimiter;
  readonly presence: Presence;
  readonly space: ChannelSpace;
  /** Senders held for a connected client's answer, by `channel:seq` (`undefined`: the hub's own 200). */
  readonly waiters: Map<string, (answer: WireAnswer | undefined) => void>;
  /**
   * Per channel, the senders being stored that will wait for an answer: each settles once its waiter is
   * registered (or it failed). A poll waits for them before it tells the client which events want an answer,
   * so an event stored a moment before its waiter exists is not sent as one nobody waits for.
   */
  readonly answering: Map<string, Set<Promise<void>>>;
  /** Aborts on shutdown: held polls end. */
  readonly stopping: AbortSignal;
  /** Stops the timers and held polls. */
  close(): void;
}

/** Builds the context of one hub handler from its options. */
export function createHubContext(options: HubOptions): HubContext {
  const limits: HubLimits = { ...DEFAULT_LIMITS, ...options.limits };
  if (options.limits?.maxBodySize === undefined && options.maxBodySize !== undefined) {
    limits.maxBodySize = options.maxBodySize;
  }
  limits.answerTimeoutMs = options.answerTimeoutMs ?? limits.answerTimeoutMs;
  const { maxBodySize } = limits;
  const now = options.now ?? Date.now;
  const bodyTimeoutMs = options.bodyTimeoutMs ?? 30_000;
  const stall = new StallWatch(bodyTimeoutMs);
  const space = new ChannelSpace(options.store, now, limits.retentionMs);
  const stopping = new AbortController();
  return {
    store: options.store,
    limits,
    now,
    publicUrl: options.publicUrl,
    adminHash: options.adminToken === undefined ? undefined : hashToken(options.adminToken),
    pollWaitMs: options.pollWaitMs ?? 25_000,
    bodyTimeoutMs,
    // Every bound at least the body limit: a body of the largest size stored can always be received alone.
    budgets: {
      hub: new BodyBudget(Math.max(options.maxBodyBytesInFlight ?? limits.maxBytesInFlight, maxBodySize)),
      channel: new KeyedBudget(Math.max(limits.maxBytesInFlightPerChannel, maxBodySize)),
      address: new KeyedBudget(Math.max(limits.maxBytesInFlightPerAddress, maxBodySize)),
    },
    stall,
    rate: createRateLimiter(limits.ratePerMinute, now),
    // A longer wait for answers (--answer-timeout) also lets a client be slower between two polls.
    presence: new Presence(Math.max(CONNECTED_MS, limits.answerTimeoutMs - 2000)),
    space,
    waiters: new Map(),
    answering: new Map(),
    stopping: stopping.signal,
    close() {
      space.close();
      stall.close();
      stopping.abort();
    },
  };
}
