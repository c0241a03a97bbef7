/**
 * Keeps hub events in commit order through dev's concurrent handler: an
 * event's append waits its turn (every earlier sequence number stored or
 * settled), so the log holds them in the hub's order while a batch is
 * handled concurrently and shares the writer's group commit. The outcomes
 * (dev's activity lines, the unmatched log) are given in that order too: a
 * 404 that was quick to answer waits for the 200s before it in its batch.
 * @module
 */
import type { EventSink } from "../ports.ts";

/** The turn-keeper. */
export interface HubOrder {
  /** The next sequence number expected is `after + 1` (at the start of each batch). */
  reset(after: number): void;
  /** Marks `seq` settled (stored, skipped or refused): later ones may go. Idempotent. */
  done(seq: number): void;
  /** Wraps the session's sink: hub events append in sequence order. */
  wrap(sink: EventSink): EventSink;
  /**
   * Wraps dev's outcome callback: a hub event's outcome (`hubSeq` set) is passed on once every earlier event
   * of its batch has been handled; any other outcome at once.
   */
  inOrder<T extends { hubSeq?: number | undefined }>(fn: (outcome: T) => void): (outcome: T) => void;
  /** The handling of `seq` ended (its outcome given, or none: skipped as stored already, or it failed). */
  handled(seq: number): void;
}

/** Outcomes held until the ones before them are given, per batch. */
function outcomeTurns() {
  let next = 1;
  const held = new Map<number, () => void>();
  const ended = new Set<number>();
  const flush = () => {
    for (;;) {
      const give = held.get(next);
      if (give !== undefined) {
        held.delete(next);
        next++;
        give();
      } else if (ended.delete(next)) next++;
      else return;
    }
  };
  return {
    reset(after: number) {
      // Nothing is left held after a batch (each event ends handled); should one be, it is given, not lost.
      for (const seq of [...held.keys()].sort((a, b) => a - b)) held.get(seq)!();
      held.clear();
      ended.clear();
      next = after + 1;
    },
    give(seq: number, fn: () => void) {
      if (seq < next) return fn();
      held.set(seq, fn);
      flush();
    },
    ended(seq: number) {
      if (seq < next) return;
      ended.add(seq);
      flush();
    },
  };
}

/** A new turn-keeper. */
export function createHubOrder(): HubOrder {
  let next = 1;
  const outcomes = outcomeTurns();
  const settled = new Set<number>();
  const waiting = new Map<number, () => void>();
  const advance = () => {
    while (settled.has(next)) {
      settled.delete(next);
      next++;
    }
    waiting.get(next)?.();
  };
  const turn = (seq: number) =>
    seq <= next ? Promise.resolve() : new Promise<void>((resolve) =>
      waiting.set(seq, () => {
        waiting.delete(seq);
        resolve();
      })
    );
  const order: HubOrder = {
    reset(after) {
      outcomes.reset(after);
      next = after + 1;
      settled.clear();
      waiting.clear();
    },
    done(seq) {
      if (seq < next) return;
      settled.add(seq);
      advance();
    },
    wrap(sink) {
      return {
        async append(event) {
          const seq = event.hub?.seq;
          if (seq === undefined) return sink.append(event);
          await turn(seq);
          const stored = sink.append(event); // queued in order now
          order.done(seq);
          return stored;
        },
      };
    },
    inOrder(fn) {
      return (outcome) => {
        const seq = outcome.hubSeq;
        if (seq === undefined) fn(outcome);
        else outcomes.give(seq, () => fn(outcome));
      };
    },
    handled(seq) {
      outcomes.ended(seq);
    },
  };
  return order;
}
