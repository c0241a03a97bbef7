/**
 * Channel ids and tokens: random, unguessable (128 and 256 bits), tokens
 * kept only as SHA-256 hashes and compared in constant time.
 * @module
 */

function randomBase64Url(bytes: number): string {
  return crypto.getRandomValues(new Uint8Array(bytes)).toBase64({ alphabet: "base64url", omitPadding: true });
}

/**
 * A new channel id: 128 random bits, URL-safe (22 characters), never starting with `-`: an id given as a
 * command-line value (`--channel ID`) must not read as an option (about 1 in 64 did).
 */
export function newChannelId(): string {
  for (;;) {
    const id = randomBase64Url(16);
    if (!id.startsWith("-")) return id;
  }
}

/** A new client token: 256 random bits. */
export function newToken(): string {
  return `htk_${randomBase64Url(32)}`;
}

/** A channel id's shape (what `newChannelId` makes). */
export const CHANNEL_ID = /^[A-Za-z0-9_-]{22}$/;

/** SHA-256 of `text`, as bytes. */
export async function hashToken(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
}

/** Compares two byte strings in time that depends only on their lengths. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

/** Whether `given` hashes to `stored` (constant time over the hashes). */
export async function tokenMatches(given: string, stored: Uint8Array): Promise<boolean> {
  return sameBytes(await hashToken(given), stored);
}

/** The token of an `Authorization: Bearer <token>` header, or `undefined`. */
export function bearer(headers: Headers): string | undefined {
  const value = headers.get("authorization");
  const match = value === null ? null : /^Bearer\s+(\S+)$/i.exec(value);
  return match?.[1];
}
