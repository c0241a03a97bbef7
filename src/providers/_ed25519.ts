/**
 * Ed25519 and ECDSA P-256 verification through `crypto.subtle`, with the
 * imported keys cached per key text. Pure apart from the cache.
 * @module
 */
const keys = new Map<string, Promise<CryptoKey>>();

function _key(
  cacheKey: string,
  format: "raw" | "spki",
  bytes: Uint8Array,
  algorithm: AlgorithmIdentifier | EcKeyImportParams,
): Promise<CryptoKey> {
  let key = keys.get(cacheKey);
  if (key === undefined) {
    key = crypto.subtle.importKey(format, bytes as Uint8Array<ArrayBuffer>, algorithm, false, ["verify"]);
    key.catch(() => keys.delete(cacheKey));
    keys.set(cacheKey, key);
  }
  return key;
}

/** Whether `signature` is an Ed25519 signature of `data` by the raw 32-byte `publicKey`. */
export async function verifyEd25519(
  publicKey: Uint8Array,
  signature: Uint8Array,
  data: Uint8Array,
): Promise<boolean> {
  if (publicKey.length !== 32 || signature.length !== 64) return false;
  try {
    const key = await _key(`ed25519:${publicKey.join(",")}`, "raw", publicKey, { name: "Ed25519" });
    return await crypto.subtle.verify(
      "Ed25519",
      key,
      signature as Uint8Array<ArrayBuffer>,
      data as Uint8Array<ArrayBuffer>,
    );
  } catch {
    return false;
  }
}

/** A DER `SEQUENCE { INTEGER r, INTEGER s }` as the 64-byte `r || s` WebCrypto wants, or `undefined`. */
export function derToRaw(der: Uint8Array): Uint8Array | undefined {
  let at = 0;
  if (der[at++] !== 0x30) return undefined;
  let len = der[at++]!;
  if (len & 0x80) at += len & 0x7f;
  const out = new Uint8Array(64);
  for (let i = 0; i < 2; i++) {
    if (der[at++] !== 0x02) return undefined;
    len = der[at++]!;
    let int = der.subarray(at, at + len);
    at += len;
    while (int.length > 32 && int[0] === 0) int = int.subarray(1);
    if (int.length > 32) return undefined;
    out.set(int, i * 32 + 32 - int.length);
  }
  return out;
}

/** Whether the DER `signature` is an ECDSA P-256 / SHA-256 signature of `data` by the SPKI `publicKey`. */
export async function verifyP256(
  publicKey: Uint8Array,
  signature: Uint8Array,
  data: Uint8Array,
): Promise<boolean> {
  const raw = signature.length === 64 ? signature : derToRaw(signature);
  if (raw === undefined) return false;
  try {
    const key = await _key(`p256:${publicKey.join(",")}`, "spki", publicKey, {
      name: "ECDSA",
      namedCurve: "P-256",
    });
    return await crypto.subtle.verify(
      { name: "ECDSA", hash: "SHA-256" },
      key,
      raw as Uint8Array<ArrayBuffer>,
      data as Uint8Array<ArrayBuffer>,
    );
  } catch {
    return false;
  }
}

/** The 64-byte `r || s` of WebCrypto's ECDSA as a DER `SEQUENCE { INTEGER r, INTEGER s }` (what SendGrid sends). */
export function rawToDer(raw: Uint8Array): Uint8Array {
  const int = (bytes: Uint8Array) => {
    let b = bytes;
    while (b.length > 1 && b[0] === 0 && (b[1]! & 0x80) === 0) b = b.subarray(1);
    return (b[0]! & 0x80) !== 0 ? [0x02, b.length + 1, 0, ...b] : [0x02, b.length, ...b];
  };
  const body = [...int(raw.subarray(0, 32)), ...int(raw.subarray(32, 64))];
  return new Uint8Array([0x30, body.length, ...body]);
}

/** Signs `data` with an Ed25519 or ECDSA P-256 private key (ECDSA: DER, as SendGrid sends it). */
export async function signWithKey(privateKey: CryptoKey, data: Uint8Array): Promise<Uint8Array> {
  const bytes = data as Uint8Array<ArrayBuffer>;
  if (privateKey.algorithm.name === "Ed25519") {
    return new Uint8Array(await crypto.subtle.sign("Ed25519", privateKey, bytes));
  }
  return rawToDer(
    new Uint8Array(await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, privateKey, bytes)),
  );
}
