/**
 * The bytes of relayed answers in flight, bounded: a relayed answer is held
 * whole in memory until its sender has read it (up to 64 MiB each,
 * ./answer_note.ts), so twenty senders to an app answering 60 MiB each would
 * take 1.2 GB. Each answer charges the budget as its bytes arrive (never
 * from the length it declares) and gives them back once its sender has read
 * it or left. An answer that would pass the bound is not kept: it is read to
 * its end and counted (the app's record stays true), and its sender gets
 * hooktap's 503 with `Retry-After` (./relay_answer.ts).
 * @module
 */

import { RELAY_BYTES_IN_FLIGHT } from "./answer_note.ts";
import { RECORD_BODY_BYTES } from "../event/delivery.ts";
import type { BodyBudgetLike } from "./http1.ts";

/** A shared bound on the bytes of relayed answers held in memory. */
export class RelayBudget {
  #used = 0;
  /** @param limit the bound, in bytes. */
  constructor(readonly limit: number = RELAY_BYTES_IN_FLIGHT) {}
  /** Bytes charged now. */
  get used(): number {
    return this.#used;
  }
  /** Charges `bytes` and says true, or says false when that would pass the bound (nothing is charged then). */
  take(bytes: number): boolean {
    if (this.#used + bytes > this.limit) return false;
    this.#used += bytes;
    return true;
  }
  /** Gives back `bytes` taken earlier. */
  release(bytes: number): void {
    this.#used = Math.max(0, this.#used - bytes);
  }
  /**
   * A share for one answer: it takes from this budget and gives back all it took at once, whatever happened
   * to the answer (passed on, refused, cut off by the app). Refused, the answer keeps its first
   * `keepRefused` bytes (for its record), uncharged.
   */
  lease(keepRefused: number = RECORD_BODY_BYTES): RelayLease {
    let held = 0;
    let ended = false;
    return {
      keepRefused,
      take: (bytes) => {
        if (ended || !this.take(bytes)) return false;
        held += bytes;
        return true;
      },
      release: () => {
        if (ended) return;
        ended = true;
        this.release(held);
        held = 0;
      },
    };
  }
}

/**
 * One answer's share of a {@linkcode RelayBudget}: what the HTTP clients charge an answer to
 * (./http1.ts's `BodyBudgetLike`); its `release` gives back everything taken, and later takes are refused.
 */
export type RelayLease = BodyBudgetLike;
