/**
 * The order and timing of a trigger's deliveries: a sequence shuffled for
 * `--out-of-order` (repeatable with a seed), and a provider's retry
 * schedule, compressed to seconds unless `--real-time`. Pure.
 * @module
 */

import { SIGNED_TIMESTAMP, toleranceFloor } from "../providers/signing.ts";

/** A seeded random number generator (mulberry32): the same seed, the same order. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `items` in a shuffled order that differs from the original (when it has 2 or more). */
export function shuffled<T>(items: readonly T[], seed: number): T[] {
  const random = seededRandom(seed);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  if (out.length > 1 && out.every((x, i) => x === items[i])) out.push(out.shift()!);
  return out;
}

/**
 * The waits before each of `count` retries, in milliseconds: the provider's
 * documented delays (the last one repeated; 1 s when it documents none), or,
 * compressed, `log2(1 + delay / 60 s)` seconds (a minute → 1 s, an hour → 6 s, a day → 10.5 s)
 * so the shape is kept and a run takes seconds.
 */
export function retryWaits(schedule: readonly number[], count: number, realTime: boolean): number[] {
  const waits: number[] = [];
  for (let i = 0; i < count; i++) {
    if (schedule.length === 0) {
      waits.push(1000);
      continue;
    }
    const seconds = schedule[Math.min(i, schedule.length - 1)]!;
    waits.push(realTime ? seconds * 1000 : Math.round(Math.log2(1 + seconds / 60) * 1000));
  }
  return waits;
}

/**
 * Where each provider signs a timestamp: a header, or (Linear) a field of the body
 * (`webhookTimestamp`, milliseconds, which @linear/sdk checks within 60 s). A provider not
 * listed signs none, so `--stale` has nothing to age.
 */
export { SIGNED_TIMESTAMP };

/** The providers whose signature covers a timestamp, for messages: "Stripe, Slack, …". */
export function timestampedProviders(): string[] {
  return Object.keys(SIGNED_TIMESTAMP);
}

/**
 * The time a stale delivery is signed at: past the receiver's tolerance by a minute
 * (Linear's SDK allows 60 s whatever the endpoint's tolerance).
 */
export function staleTime(provider: string, at: Date, tolerance: number): Date {
  const floor = toleranceFloor(provider);
  const window = floor === undefined ? tolerance : Math.max(tolerance, floor);
  return new Date(at.getTime() - (window + 60) * 1000);
}
