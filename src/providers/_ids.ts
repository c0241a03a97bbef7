/**
 * Random ids in the shapes providers use (`pi_3Q...`, UUIDs, hex), and
 * unix time. Fresh on each call, except the `stable` ones (a webhook's own ids), which derive from a seed.
 * @module
 */
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

/**
 * 32 hex digits that are the same for the same `seed` (four FNV-1a lanes): an id, not a secret, so no
 * cryptographic hash (and no node:crypto, which `trigger` never loads).
 */
function _stableHex(seed: string): string {
  const bytes = new TextEncoder().encode(seed);
  let out = "";
  for (const basis of [0x811c9dc5, 0x01000193, 0x9e3779b9, 0x85ebca6b]) {
    let h = basis >>> 0;
    for (const b of bytes) h = Math.imul(h ^ b, 0x01000193) >>> 0;
    h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) >>> 0;
    h = Math.imul(h ^ (h >>> 12), 0x297a2d39) >>> 0;
    out += ((h ^ (h >>> 15)) >>> 0).toString(16).padStart(8, "0");
  }
  return out;
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
