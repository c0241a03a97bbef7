/**
 * How a target's attempts read: dev's own (its forwarding and retries) and
 * the sends by hand (`replay`, the inspector's Replay) apart, so that a
 * replay after a delivery never reads as a retry. Pure; the inspector's page
 * uses it too.
 * @module
 */

/** What the phrase needs of a target's outcome (src/send/delivery_state.ts). */
export interface AttemptCounts {
  /** Every attempt, replays included. */
  attempts: number;
  /** Of those, the sends by hand. */
  replays?: number | undefined;
}

/**
 * `3 tries`, `1 try, 1 replay`, `2 replays` (`words: "attempts"`: `3 attempts`, `1 attempt, 1 replay`); `""`
 * when there was no attempt.
 */
export function attemptsPhrase(t: AttemptCounts, words: "tries" | "attempts"): string {
  const replays = t.replays ?? 0;
  const own = t.attempts - replays;
  const [one, many] = words === "tries" ? ["try", "tries"] : ["attempt", "attempts"];
  const parts: string[] = [];
  if (own > 0) parts.push(`${own} ${own === 1 ? one : many}`);
  if (replays > 0) parts.push(`${replays} ${replays === 1 ? "replay" : "replays"}`);
  return parts.join(", ");
}
