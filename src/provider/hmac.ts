/**
 * HMAC, digests, constant-time comparison and the encodings signatures come
 * in. node:crypto's `createHmac` is used rather than `crypto.subtle`: for
 * the small bodies webhooks carry it is several times cheaper per call under
 * Deno (no key import, no promise; see README "Design"). Pure.
 * @module
 */
import { Buffer } from "node:buffer";
import { createHash, createHmac, timingSafeEqual } from "node:crypto";

/** A hash algorithm of node:crypto. */
export type HashName = "sha1" | "sha256" | "sha512";

/** HMAC of `data` with `key`. */
export function hmac(algorithm: HashName, key: string | Uint8Array, data: string | Uint8Array): Uint8Array {
  return new Uint8Array(createHmac(algorithm, key).update(data).digest());
}

/** HMAC of the concatenated `parts` (strings as UTF-8, bytes as is). */
export function hmacParts(
  algorithm: HashName,
  key: string | Uint8Array,
  parts: readonly (string | Uint8Array)[],
): Uint8Array {
  const h = createHmac(algorithm, key);
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
}

/** SHA-256 of `data`, hex. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** Whether `a` and `b` are equal, in time that does not depend on where they differ. */
export function safeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  return timingSafeEqual(a, b);
}

/** Whether two strings are equal, constant-time over their UTF-8 bytes. */
export function safeEqualText(a: string, b: string): boolean {
  return safeEqual(new TextEncoder().encode(a), new TextEncoder().encode(b));
}

/** Hex text to bytes, or `undefined` when it is not hex. */
export function fromHex(text: string): Uint8Array | undefined {
  const t = text.trim();
  if (t.length === 0 || t.length % 2 !== 0 || !/^[0-9a-fA-F]+$/.test(t)) return undefined;
  return new Uint8Array(Buffer.from(t, "hex"));
}

/** Base64 (or base64url) text to bytes, or `undefined` when it is not base64. */
export function fromBase64(text: string): Uint8Array | undefined {
  const t = text.trim();
  if (t.length === 0 || !/^[A-Za-z0-9+/_-]+={0,2}$/.test(t)) return undefined;
  return new Uint8Array(Buffer.from(t, "base64"));
}

/** Bytes as hex. */
export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("hex");
}

/** Bytes as base64. */
export function toBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("base64");
}

/** Decodes a signature in `encoding`. */
export function decodeSignature(text: string, encoding: "hex" | "base64"): Uint8Array | undefined {
  return encoding === "hex" ? fromHex(text) : fromBase64(text);
}
