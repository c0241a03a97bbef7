/**
 * HMAC, digests, constant-time comparison and the encodings signatures come
 * in. The receiver verifies with node:crypto's `createHmac` rather than
 * `crypto.subtle`: for the small bodies webhooks carry it is several times
 * cheaper per call under Deno (no key import, no promise; see README
 * "Design"). node:crypto is loaded on first use, not imported, and `trigger`
 * signs with WebCrypto ({@linkcode withWebCrypto}): it never loads it.
 * @module
 */
/** A hash algorithm of node:crypto. */
export type HashName = "sha1" | "sha256" | "sha512";

/** Computes digests synchronously. */
interface Backend {
  hmac(algorithm: HashName, key: string | Uint8Array, parts: readonly (string | Uint8Array)[]): Uint8Array;
  sha256(data: string | Uint8Array): Uint8Array;
}

interface NodeCrypto {
  createHmac(algorithm: string, key: string | Uint8Array): {
    update(data: string | Uint8Array): unknown;
    digest(): Uint8Array;
  };
  createHash(algorithm: string): { update(data: string | Uint8Array): unknown; digest(): Uint8Array };
}

let nodeBackend: Backend | undefined;
/**
 * node:crypto, loaded on first use (`process.getBuiltinModule`, synchronous) rather than imported: loading
 * it costs about 20 ms, which `trigger` (WebCrypto, {@linkcode withWebCrypto}) and the read commands skip.
 */
function _node(): Backend {
  if (nodeBackend !== undefined) return nodeBackend;
  const process = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const c = process?.getBuiltinModule?.("node:crypto") as NodeCrypto | undefined;
  if (c === undefined) throw new Error("node:crypto is not available in this runtime");
  nodeBackend = {
    hmac(algorithm, key, parts) {
      const h = c.createHmac(algorithm, key);
      for (const p of parts) h.update(p);
      return new Uint8Array(h.digest());
    },
    sha256: (data) => {
      const h = c.createHash("sha256");
      h.update(data);
      return new Uint8Array(h.digest());
    },
  };
  return nodeBackend;
}

/** Where digests come from now: node:crypto, or the answers {@linkcode withWebCrypto} computed. */
let backend: () => Backend = _node;

/**
 * Loads node:crypto now (22–30 ms and ~10 MB, once) rather than at the first digest: `dev` calls it once it
 * listens when an endpoint has a secret, so that the first signed request is not the one that waits.
 */
export function preloadDigests(): void {
  try {
    // One digest too: node:crypto's first HMAC sets up what every later one reuses (a few ms).
    if (backend === _node) _node().hmac("sha256", "warm", ["up"]);
  } catch { /* the first digest says why */ }
}

/** HMAC of `data` with `key`. */
export function hmac(algorithm: HashName, key: string | Uint8Array, data: string | Uint8Array): Uint8Array {
  return backend().hmac(algorithm, key, [data]);
}

/** HMAC of the concatenated `parts` (strings as UTF-8, bytes as is). */
export function hmacParts(
  algorithm: HashName,
  key: string | Uint8Array,
  parts: readonly (string | Uint8Array)[],
): Uint8Array {
  return backend().hmac(algorithm, key, parts);
}

/** SHA-256 of `data`, hex. */
export function sha256Hex(data: string | Uint8Array): string {
  return toHex(backend().sha256(data));
}

const WEB_HASH: Record<HashName, string> = { sha1: "SHA-1", sha256: "SHA-256", sha512: "SHA-512" };
const SIZE: Record<HashName, number> = { sha1: 20, sha256: 32, sha512: 64 };
const encoder = new TextEncoder();
const bytesOf = (v: string | Uint8Array): Uint8Array<ArrayBuffer> =>
  typeof v === "string" ? encoder.encode(v) : new Uint8Array(v);

function _concat(parts: readonly (string | Uint8Array)[]): Uint8Array<ArrayBuffer> {
  const all = parts.map(bytesOf);
  const out = new Uint8Array(all.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of all) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** One digest asked for: algorithm, key (none for a hash) and data, as given and as bytes. */
interface Ask {
  algorithm: string;
  key: string | Uint8Array | undefined;
  parts: readonly (string | Uint8Array)[];
  data: Uint8Array;
  digest?: Uint8Array;
}

function _sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Whether `a` and `b` are the same input: equal strings or the same array compare at once (a later pass
 * asks with the same body object), so the byte by byte comparison, slow in code V8 has not yet optimised
 * (~1 ms for a 7 KB body at start-up), runs only when the two differ in kind or object.
 */
function _same(a: string | Uint8Array | undefined, b: string | Uint8Array | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  return _sameBytes(bytesOf(a), bytesOf(b));
}

function _sameAsk(
  a: Ask,
  algorithm: string,
  key: string | Uint8Array | undefined,
  parts: readonly (string | Uint8Array)[],
  data: Uint8Array,
): boolean {
  if (a.algorithm !== algorithm || a.data.length !== data.length || !_same(a.key, key)) return false;
  if (a.parts.length === parts.length && a.parts.every((p, i) => p === parts[i])) return true;
  return _sameBytes(a.data, data);
}

/**
 * Runs `compute` (synchronous code that calls {@linkcode hmac}, {@linkcode hmacParts} or
 * {@linkcode sha256Hex}, such as a provider's `resign`) with WebCrypto (`crypto.subtle`) instead of
 * node:crypto: `compute` runs, each digest it asks for is computed with `crypto.subtle`, and it runs again
 * with the answers, until it asks for nothing new (what it draws with `crypto.randomUUID` is replayed). The
 * swap lasts only while `compute` runs synchronously, so nothing else in the process sees it. For `trigger`, which must not load node:crypto.
 */
export async function withWebCrypto<T>(compute: () => T): Promise<T> {
  const asked: Ask[] = [];
  const uuids: `${string}-${string}-${string}-${string}-${string}`[] = [];
  const answer = (
    algorithm: string,
    key: string | Uint8Array | undefined,
    parts: readonly (string | Uint8Array)[],
    size: number,
  ) => {
    const data = _concat(parts);
    let ask = asked.find((a) => _sameAsk(a, algorithm, key, parts, data));
    if (ask === undefined) asked.push(ask = { algorithm, key, parts: [...parts], data });
    return ask.digest ?? new Uint8Array(size);
  };
  const answering: Backend = {
    hmac: (algorithm, key, parts) => answer(algorithm, key, parts, SIZE[algorithm]),
    sha256: (data) => answer("sha256", undefined, [data], 32),
  };
  for (let pass = 0; pass < 10; pass++) {
    const previous = backend;
    const randomUUID = crypto.randomUUID;
    let draw = 0;
    backend = () => answering;
    // An id drawn at random (a Standard Webhooks or Twitch message id) is drawn once and replayed in the
    // later passes: each pass then asks for the same digests.
    crypto.randomUUID = () => (uuids[draw++] ??= randomUUID.call(crypto));
    let result: T;
    try {
      result = compute();
    } finally {
      backend = previous;
      crypto.randomUUID = randomUUID;
    }
    const missing = asked.filter((a) => a.digest === undefined);
    if (missing.length === 0) return result;
    // Side by side: each is a round trip to Deno's crypto threads.
    await Promise.all(missing.map(async (a) => {
      if (a.key === undefined) {
        a.digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new Uint8Array(a.data)));
      } else {
        const hash = WEB_HASH[a.algorithm as HashName];
        const k = await crypto.subtle.importKey("raw", bytesOf(a.key), { name: "HMAC", hash }, false, [
          "sign",
        ]);
        a.digest = new Uint8Array(await crypto.subtle.sign("HMAC", k, new Uint8Array(a.data)));
      }
    }));
  }
  throw new Error("a signature asked for digests that never settled");
}

/** Whether `a` and `b` are equal, in time that does not depend on where they differ. */
export function safeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

/** Whether two strings are equal, constant-time over their UTF-8 bytes. */
export function safeEqualText(a: string, b: string): boolean {
  return safeEqual(new TextEncoder().encode(a), new TextEncoder().encode(b));
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/** Hex text to bytes, or `undefined` when it is not hex. */
export function fromHex(text: string): Uint8Array | undefined {
  const t = text.trim();
  if (t.length === 0 || t.length % 2 !== 0 || !/^[0-9a-fA-F]+$/.test(t)) return undefined;
  const out = new Uint8Array(t.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(t.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** Base64 (or base64url) text to bytes, or `undefined` when it is not base64. */
export function fromBase64(text: string): Uint8Array | undefined {
  const t = text.trim();
  if (t.length === 0 || !/^[A-Za-z0-9+/_-]+={0,2}$/.test(t)) return undefined;
  // As node's Buffer decodes: either alphabet, padding optional, a last lone character ignored.
  let b = t.replace(/=+$/, "").replaceAll("-", "+").replaceAll("_", "/");
  if (b.length % 4 === 1) b = b.slice(0, -1);
  b += "=".repeat((4 - (b.length % 4)) % 4);
  const binary = atob(b);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

/** Bytes as hex. */
export function toHex(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i++) out += HEX[bytes[i]!]!;
  return out;
}

/** Bytes as base64. */
export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/** Decodes a signature in `encoding`. */
export function decodeSignature(text: string, encoding: "hex" | "base64"): Uint8Array | undefined {
  return encoding === "hex" ? fromHex(text) : fromBase64(text);
}
