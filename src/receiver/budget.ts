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
/**
 * Default bound of the requests whose body is being read at once: 1000. Each
 * costs the runtime's connection and request buffers (about 40 KB on
 * Deno.serve, more for a small declared body read whole) whatever its bytes.
 */
export const DEFAULT_MAX_BODIES_IN_FLIGHT = 1000;

/** The bytes in flight, or the bodies being read, would pass the bound. */
export class BodyBudgetError extends Error {
  /**
   * @param limit the bound passed.
   * @param kind which bound: the bytes of all bodies, or the count of bodies being read.
   */
  constructor(readonly limit: number, readonly kind: "bytes" | "bodies" = "bytes") {
    super(
      kind === "bytes"
        ? `The bodies being received pass hooktap's bound of ${limit} bytes in flight.`
        : `The requests waiting for their body pass hooktap's bound of ${limit} at once.`,
    );
    this.name = "BodyBudgetError";
  }
}

/** A shared bound on the bytes of bodies in flight. */
export class BodyBudget {
  #used = 0;
  #bodies = 0;
  /**
   * A budget of body bytes and of bodies in flight.
   * @param limit the bound, in bytes.
   * @param maxBodies the bound on the requests whose body is being read at once.
   */
  constructor(
    readonly limit: number = DEFAULT_MAX_BODY_BYTES_IN_FLIGHT,
    readonly maxBodies: number = DEFAULT_MAX_BODIES_IN_FLIGHT,
  ) {}
  /** Requests whose body is being read now. */
  get bodies(): number {
    return this.#bodies;
  }
  /**
   * Counts one more body being read, until {@linkcode BodyBudget.leave}.
   * @throws {BodyBudgetError} when that would pass `maxBodies` (nothing is counted then).
   */
  enter(): void {
    if (this.#bodies >= this.maxBodies) throw new BodyBudgetError(this.maxBodies, "bodies");
    this.#bodies++;
  }
  /** A body counted by {@linkcode BodyBudget.enter} is read (or failed). */
  leave(): void {
    this.#bodies = Math.max(0, this.#bodies - 1);
  }
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
