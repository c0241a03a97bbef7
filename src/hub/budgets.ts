/**
 * The hub's bounds on body bytes in flight, in layers: each channel's, each
 * client address's, then the hub's (every body). A body is charged to all
 * three as its bytes arrive; one over its channel's or its address's bound
 * is refused (503) while other channels and other senders keep the rest of
 * the hub's budget. So one channel, or one sender, that holds many stalled
 * uploads cannot starve the others (issue 38). Behind a reverse proxy every
 * sender has the proxy's address: the address bound then acts as a second
 * hub-wide bound (docs/hub.md#limits).
 * @module
 */
import { BodyBudget, BodyBudgetError } from "../receiver/budget.ts";

/** Which bound refused a body. */
export type BudgetScope = "channel" | "address" | "hub";

/** A body was refused by one of the hub's bounds. */
export class HubBudgetError extends BodyBudgetError {
  constructor(readonly scope: BudgetScope, limit: number) {
    super(limit);
    this.name = "HubBudgetError";
  }
}

/** Bytes in flight per key (a channel, an address), each at most `limit`. */
export class KeyedBudget {
  readonly #used = new Map<string, number>();
  /** @param limit the bound of each key, in bytes. */
  constructor(readonly limit: number) {}
  /** Bytes charged to `key` now. */
  used(key: string): number {
    return this.#used.get(key) ?? 0;
  }
  /** Charges `bytes` to `key`: false (nothing charged) when that would pass the bound. */
  charge(key: string, bytes: number): boolean {
    const now = this.used(key);
    if (now + bytes > this.limit) return false;
    this.#used.set(key, now + bytes);
    return true;
  }
  /** Gives back `bytes` charged to `key` earlier (a key at zero is forgotten: the map stays bounded). */
  release(key: string, bytes: number): void {
    const left = this.used(key) - bytes;
    if (left <= 0) this.#used.delete(key);
    else this.#used.set(key, left);
  }
  /** Keys holding bytes now. */
  get size(): number {
    return this.#used.size;
  }
}

/** The hub's three layers. */
export interface HubBudgets {
  channel: KeyedBudget;
  address: KeyedBudget;
  hub: BodyBudget;
}

/**
 * One request's budget: what `readBody` charges, passed on to its channel's,
 * its address's and the hub's bound, in that order (nothing charged when one refuses).
 */
export class RequestBudget extends BodyBudget {
  #mine = 0;
  constructor(readonly layers: HubBudgets, readonly channel: string, readonly address: string) {
    super(layers.hub.limit);
  }
  override get used(): number {
    return this.#mine;
  }
  /** @throws {HubBudgetError} naming the bound that refused. */
  override charge(bytes: number): void {
    const { channel, address, hub } = this.layers;
    if (!channel.charge(this.channel, bytes)) throw new HubBudgetError("channel", channel.limit);
    if (!address.charge(this.address, bytes)) {
      channel.release(this.channel, bytes);
      throw new HubBudgetError("address", address.limit);
    }
    try {
      hub.charge(bytes);
    } catch {
      channel.release(this.channel, bytes);
      address.release(this.address, bytes);
      throw new HubBudgetError("hub", hub.limit);
    }
    this.#mine += bytes;
  }
  /** Counted among the hub's bodies being read (its bound of bodies at once). */
  override enter(): void {
    this.layers.hub.enter();
  }
  override leave(): void {
    this.layers.hub.leave();
  }
  override release(bytes: number): void {
    const n = Math.min(bytes, this.#mine);
    this.#mine -= n;
    this.layers.channel.release(this.channel, n);
    this.layers.address.release(this.address, n);
    this.layers.hub.release(n);
  }
}
