/**
 * Random ids in the shapes providers use (`pi_3Q...`, UUIDs, hex), and
 * unix time. Fresh on each call, except the `stable` ones (a webhook's own ids), which derive from a seed.
 * @module
 */
import { createHash } from "node:crypto";

const ALPHANUM = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** `n` random characters of `alphabet`. */
export function randomText(n: number, alphabet: string = ALPHANUM): string {
  const bytes = crypto.getRandomValues(new Uint8Array(n));
  let out = "";
  for (const b of bytes) out += alphabet[b % alphabet.length];
  return out;
}

/** A Stripe-style id: `pi_3Q` + 22 characters. */
export function prefixed(prefix: string, n = 24): string {
  return `${prefix}_${randomText(n)}`;
}

/** `n` random hex digits. */
export function hex(n: number): string {
  return randomText(n, "0123456789abcdef");
}

/** A number of `n` digits (no leading zero). */
export function digits(n: number): number {
  return Number(digitString(n));
}

/**
 * `n` random digits, not starting with 0, as text: ids longer than a double holds exactly (Discord's and
 * X's 19-digit snowflakes) keep every digit.
 */
export function digitString(n: number): string {
  return randomText(1, "123456789") + randomText(n - 1, "0123456789");
}

/** A random UUID v4. */
export function uuid(): string {
  return crypto.randomUUID();
}

/** Unix seconds of `date`. */
export function unix(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}

/** The SHA-256 of `seed` as hex: the same input always gives the same id (a webhook's own, not a delivery's). */
function _stableHex(seed: string): string {
  return createHash("sha256").update(seed).digest("hex");
}

/** A number of `n` digits (n <= 12, no leading zero), the same for the same `seed`. */
export function stableDigits(seed: string, n: number): number {
  const low = 10 ** (n - 1);
  return low + (parseInt(_stableHex(seed).slice(0, 12), 16) % (9 * low));
}

/** A UUID (v4 layout) that is the same for the same `seed`. */
export function stableUuid(seed: string): string {
  const h = _stableHex(seed);
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${
    h.slice(20, 32)
  }`;
}
