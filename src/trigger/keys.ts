/**
 * The key pairs `hooktap trigger` signs asymmetric schemes with: Ed25519
 * (Discord, Standard Webhooks v1a) and ECDSA P-256 (SendGrid). Made once
 * per data directory and kept in `.hooktap/trigger-keys.json` (mode 0600);
 * the app trusts the printed public key, and `hooktap dev` trusts it for
 * its own verdicts on endpoints that declare such a provider and no key.
 * @module
 */
import { describeError, StoreError } from "../errors.ts";
import { KEYED_PROVIDERS, keyPairOf } from "../providers/signing.ts";
import { storePaths } from "../store/paths.ts";
import { ensureDataDir } from "../store/write/data_dir.ts";
import { createFileOnce, readNoFollow } from "../store/write/no_follow.ts";

const fromBase64 = (text: string): Uint8Array => Uint8Array.fromBase64(text);
const toBase64 = (bytes: Uint8Array): string => bytes.toBase64();
const toHex = (bytes: Uint8Array): string => bytes.toHex();

/** One key pair: the private key to sign with, the public key as the provider's config wants it. */
export interface TriggerKey {
  /** The private key to sign with. */
  privateKey: CryptoKey;
  /** Raw public key bytes (Ed25519: 32 bytes; P-256: SPKI DER). */
  publicKey: Uint8Array;
}

/** hooktap's trigger keys. */
export interface TriggerKeys {
  /** The Ed25519 pair. */
  ed25519: TriggerKey;
  /** The ECDSA P-256 pair. */
  p256: TriggerKey;
}

/** What the key file holds (PKCS#8 private keys and public keys, base64). */
interface KeyFile {
  ed25519: { private: string; public: string };
  p256: { private: string; public: string };
}

/** The file the keys are kept in. */
export function keyFilePath(dataDir: string): string {
  return storePaths(dataDir).triggerKeys;
}

async function _import(pkcs8: string, algorithm: "Ed25519" | "P-256", pub: string): Promise<TriggerKey> {
  const bytes = fromBase64(pkcs8) as Uint8Array<ArrayBuffer>;
  const privateKey = await crypto.subtle.importKey(
    "pkcs8",
    bytes,
    algorithm === "Ed25519" ? { name: "Ed25519" } : { name: "ECDSA", namedCurve: "P-256" },
    true,
    ["sign"],
  );
  return { privateKey, publicKey: fromBase64(pub) };
}

async function _make(algorithm: "Ed25519" | "P-256"): Promise<{ private: string; public: string }> {
  const pair =
    (algorithm === "Ed25519"
      ? await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"])
      : await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
        "sign",
        "verify",
      ])) as CryptoKeyPair;
  const priv = new Uint8Array(await crypto.subtle.exportKey("pkcs8", pair.privateKey));
  const pub = new Uint8Array(
    await crypto.subtle.exportKey(algorithm === "Ed25519" ? "raw" : "spki", pair.publicKey),
  );
  return { private: toBase64(priv), public: toBase64(pub) };
}

async function _fromFile(file: KeyFile): Promise<TriggerKeys> {
  return {
    ed25519: await _import(file.ed25519.private, "Ed25519", file.ed25519.public),
    p256: await _import(file.p256.private, "P-256", file.p256.public),
  };
}

/** Fresh key pairs, kept nowhere (the test library's default). */
export async function makeTriggerKeys(): Promise<TriggerKeys> {
  return await _fromFile({ ed25519: await _make("Ed25519"), p256: await _make("P-256") });
}

/**
 * The keys of a data directory, or `undefined` when none were made yet (or the file is unreadable).
 * @throws {StoreError} when the key file is a link (never read through: it could be anyone's keys).
 */
export async function readTriggerKeys(dataDir: string): Promise<TriggerKeys | undefined> {
  let text: string | undefined;
  try {
    text = await readNoFollow(keyFilePath(dataDir), "the trigger key file");
  } catch (error) {
    if (error instanceof StoreError) throw error;
    return undefined;
  }
  if (text === undefined) return undefined;
  try {
    return await _fromFile(JSON.parse(text) as KeyFile);
  } catch {
    return undefined;
  }
}

/**
 * The keys of a data directory, made and written (mode 0600) on first use; `created` says so. The file is
 * created whole or not at all, never over anything already there (a link included): of two processes
 * making it at once, both sign with the keys of the one that won.
 * @throws {StoreError} when the key file is a link or cannot be written.
 */
export async function loadTriggerKeys(dataDir: string): Promise<{ keys: TriggerKeys; created: boolean }> {
  const existing = await readTriggerKeys(dataDir);
  if (existing !== undefined) return { keys: existing, created: false };
  const file: KeyFile = { ed25519: await _make("Ed25519"), p256: await _make("P-256") };
  const paths = storePaths(dataDir);
  await ensureDataDir(paths);
  let created: boolean;
  try {
    created = await createFileOnce(paths.triggerKeys, JSON.stringify(file, null, 2) + "\n");
  } catch (error) {
    throw new StoreError(`Cannot write the trigger key file ${paths.triggerKeys}: ${describeError(error)}`, {
      cause: error,
    });
  }
  if (created) return { keys: await _fromFile(file), created: true };
  const winner = await readTriggerKeys(dataDir);
  if (winner === undefined) {
    throw new StoreError(
      `The trigger key file ${paths.triggerKeys} is not a key file hooktap can read. ` +
        `Remove it (rm ${paths.triggerKeys}) and run again: hooktap makes new keys.`,
    );
  }
  return { keys: winner, created: false };
}

/** Providers signed with a key pair rather than a shared secret (their facts: src/providers/). */
export { KEYED_PROVIDERS };

/** The public key as `provider`'s `publicKey` config field takes it, or `undefined` for other providers. */
export function publicKeyFor(provider: string, keys: TriggerKeys): string | undefined {
  const pair = keyPairOf(provider);
  if (pair === undefined) return undefined;
  const key = pair.kind === "ed25519" ? keys.ed25519.publicKey : keys.p256.publicKey;
  return pair.publicKey === "hex"
    ? toHex(key)
    : pair.publicKey === "whpk"
    ? `whpk_${toBase64(key)}`
    : toBase64(key);
}

/** The private key `provider` signs with. */
export function privateKeyFor(provider: string, keys: TriggerKeys): CryptoKey | undefined {
  const pair = keyPairOf(provider);
  return pair === undefined
    ? undefined
    : pair.kind === "ed25519"
    ? keys.ed25519.privateKey
    : keys.p256.privateKey;
}
