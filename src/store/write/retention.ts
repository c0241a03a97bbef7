/**
 * `retention` applied by a running `hooktap dev`: a prune at start, then
 * one every interval, each through the same compaction as `hooktap prune`.
 * @module
 */
import type { CompactPlan, CompactResult } from "./compact.ts";
import type { Retention } from "../../ports.ts";

/** What to keep: the config's `retention` after validation (defined with the ports, src/ports.ts). */
export type { Retention };

/** Options of {@linkcode startRetention}. */
export interface RetentionOptions {
  /** Time between two prunes, in milliseconds. @default 600000 (10 minutes) */
  intervalMs?: number;
  /** Called after each prune that removed something. */
  onPruned?: (result: CompactResult) => void;
  /** Called when a prune failed (the log is then unchanged). */
  onError?: (error: unknown) => void;
  /** Clock. @default Date.now */
  now?: () => number;
}

/** A running retention: stop it before closing the writer. */
export interface RetentionRunner {
  close(): Promise<void>;
}

/** The plan `policy` stands for at time `now`. */
export function retentionPlan(policy: Retention, now: number): CompactPlan {
  const plan: CompactPlan = {};
  if (policy.keep !== undefined) plan.keep = policy.keep;
  if (policy.olderThanMs !== undefined) plan.beforeMs = now - policy.olderThanMs;
  return plan;
}

/** Starts applying `policy` with `compact`. */
export function startRetention(
  policy: Retention,
  compact: (plan: CompactPlan) => Promise<CompactResult>,
  options: RetentionOptions = {},
): RetentionRunner {
  const now = options.now ?? Date.now;
  let running: Promise<void> = Promise.resolve();
  let closed = false;
  const once = () => {
    if (closed) return;
    running = running.then(async () => {
      if (closed) return;
      try {
        const result = await compact(retentionPlan(policy, now()));
        if (!result.unchanged) options.onPruned?.(result);
      } catch (error) {
        options.onError?.(error);
      }
    });
  };
  const first = setTimeout(once, 0);
  const timer = setInterval(once, options.intervalMs ?? 600_000);
  Deno.unrefTimer(timer);
  return {
    async close() {
      closed = true;
      clearTimeout(first);
      clearInterval(timer);
      await running;
    },
  };
}
