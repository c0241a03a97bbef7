/**
 * The bytes of all request bodies in flight, bounded: each body charges the
 * budget as its bytes arrive (never from the length it declares) and gives
 * them back once the request is done. A body that would pass the bound is
 * refused (the request gets a 503 with `Retry-After`), so memory stays
 * bounded however many clients upload at once.
 * @module
 */

/** Default bound of the bytes of all bodies in flight: 128 MiB. */
export const DEFAULT_MAX_BODY_BYTES_IN_FLIGHT = 128 * 1024 * 1024;

/** The bytes in flight would pass the bound. */
export class BodyBudgetError extends Error {
  constructor(readonly limit: number) {
    super(`The bodies being received pass hooktap's bound of ${limit} bytes in flight.`);
    this.name = "BodyBudgetError";
  }
}

/** A shared bound on the bytes of bodies in flight. */
export class BodyBudget {
  #used = 0;
  /** @param limit the bound, in bytes. */
  constructor(readonly limit: number = DEFAULT_MAX_BODY_BYTES_IN_FLIGHT) {}
  /** Bytes charged now. */
  get used(): number {
    return this.#used;
  }
  /**
   * Charges `bytes`.
   * @throws {BodyBudgetError} when that would pass the bound (nothing is charged then).
   */
  charge(bytes: number): void {
    if (this.#used + bytes > this.limit) throw new BodyBudgetError(this.limit);
    this.#used += bytes;
  }
  /** Gives back `bytes` charged earlier. */
  release(bytes: number): void {
    this.#used = Math.max(0, this.#used - bytes);
  }
}
