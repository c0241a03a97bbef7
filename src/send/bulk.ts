/**
 * Bulk replay: many stored events sent again in arrival order, one at a
 * time, each through the single-event {@linkcode replay} (so whatever it
 * records, it records for both), optionally at a steady rate. A stop
 * (Ctrl-C) lets the send in flight finish and then ends.
 * @module
 */
import { describeError } from "../errors.ts";
import type { CapturedEvent } from "../event/record.ts";
import { replay, type ReplayOptions, type ReplayResult } from "./replay.ts";

/** Options of {@linkcode replayMany}. */
export interface BulkOptions extends Omit<ReplayOptions, "signal"> {
  /** Sends per second at most. @default unlimited */
  rate?: number;
  /** Stops after the send in flight (it is not cancelled). */
  signal?: AbortSignal;
  /** Called after each send with its result or the reason it failed. */
  onResult?: (event: CapturedEvent, outcome: ReplayResult | { error: string }) => void;
  /** Waits (for the rate). @default setTimeout, cut short by `signal` */
  sleep?: (ms: number) => Promise<void>;
}

/** What a bulk replay did. */
export interface BulkSummary {
  sent: number;
  /** Answered 2xx. */
  ok: number;
  /** Answered otherwise, or not reachable. */
  failed: number;
  /** Stopped before the end. */
  interrupted: boolean;
}

function _sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** Sends each of `events` to `to`, in order. */
export async function replayMany(
  events: AsyncIterable<CapturedEvent>,
  to: string,
  options: BulkOptions = {},
): Promise<BulkSummary> {
  const { rate, signal, onResult, sleep = (ms) => _sleep(ms, signal), ...single } = options;
  const summary: BulkSummary = { sent: 0, ok: 0, failed: 0, interrupted: false };
  const gap = rate === undefined ? 0 : 1000 / rate;
  let next = performance.now();
  for await (const event of events) {
    if (signal?.aborted) break;
    const wait = next - performance.now();
    if (wait > 0) await sleep(wait);
    if (signal?.aborted) break;
    next = Math.max(next + gap, performance.now());
    let outcome: ReplayResult | { error: string };
    try {
      outcome = await replay(event, to, single);
    } catch (error) {
      outcome = { error: describeError(error) };
    }
    summary.sent++;
    if ("ok" in outcome && outcome.ok) summary.ok++;
    else summary.failed++;
    onResult?.(event, outcome);
  }
  summary.interrupted = signal?.aborted ?? false;
  return summary;
}
