/**
 * When to try again: which answers are worth another attempt and how long
 * to wait before it (the target's backoff, or the app's `Retry-After`). Pure.
 * @module
 */
import { headerValue } from "../event/record.ts";
import type { ForwardTarget } from "./target.ts";

/** What one attempt ended with, as far as retrying cares. */
export interface AttemptResult {
  status?: number;
  headers?: readonly [string, string][];
  error?: string;
}

/** Whether an attempt's result is worth another try: no answer, 5xx, 429 or 408. */
export function isRetryable(result: AttemptResult): boolean {
  if (result.status === undefined) return true;
  return result.status >= 500 || result.status === 429 || result.status === 408;
}

/** Longest `Retry-After` honoured, in milliseconds. */
export const MAX_RETRY_AFTER_MS = 5 * 60_000;

/**
 * The wait before attempt `attempt + 1`, in milliseconds, or `undefined`
 * when `attempt` was the last one allowed.
 */
export function nextDelay(
  target: Pick<ForwardTarget, "attempts" | "backoffMs">,
  attempt: number,
  result: AttemptResult,
  now: number = Date.now(),
): number | undefined {
  if (attempt >= target.attempts || !isRetryable(result)) return undefined;
  const after = result.headers ? headerValue(result.headers, "retry-after") : undefined;
  if (after !== undefined) {
    const seconds = Number(after);
    const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(after) - now;
    if (Number.isFinite(ms) && ms >= 0) return Math.min(ms, MAX_RETRY_AFTER_MS);
  }
  const list = target.backoffMs;
  return list[Math.min(attempt - 1, list.length - 1)] ?? 1000;
}
