/**
 * Keeps hub events in commit order through dev's concurrent handler: an
 * event's append waits its turn (every earlier sequence number stored or
 * settled), so the log holds them in the hub's order while a batch is
 * handled concurrently and shares the writer's group commit.
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
}

/** A new turn-keeper. */
export function createHubOrder(): HubOrder {
  let next = 1;
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
  };
  return order;
}
