/**
 * An endpoint's signing fields: `provider`, `secret` (one, or several while
 * rotating), `publicKey`, `verifyToken`, `tolerance`, `enforce` and a
 * generic `hmac` scheme. Pure; every problem pushed with its field path.
 * @module
 */
import { DEFAULT_TOLERANCE } from "../providers/catalog.ts";
import type { GenericHmacSettings, ProviderSettings } from "../providers/types.ts";
import { checkKeys, isRecord, type Issues, optionalBoolean, show } from "./_check.ts";
import { readProvider } from "./provider_name.ts";

/** Endpoint fields read here. */
export const PROVIDER_FIELDS: readonly string[] = [
  "provider",
  "secret",
  "publicKey",
  "verifyToken",
  "tolerance",
  "enforce",
  "hmac",
];

const HMAC_FIELDS = ["header", "algorithm", "encoding", "prefix", "signed"];

/** Default `tolerance`, seconds (defined with the providers' facts). */
export { DEFAULT_TOLERANCE };

function _hmac(value: unknown, at: string, issues: Issues): GenericHmacSettings | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value)) {
    issues.push(
      `${at} must be an object { header, algorithm, encoding, prefix, signed }, got ${show(value)}`,
    );
    return undefined;
  }
  checkKeys(value, HMAC_FIELDS, at, "an hmac", issues);
  const { header, algorithm = "sha256", encoding = "hex", prefix = "", signed = "{body}" } = value;
  if (typeof header !== "string" || !/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(header)) {
    issues.push(`${at}.header must name the signature header, like "X-Signature", got ${show(header)}`);
  }
  if (algorithm !== "sha1" && algorithm !== "sha256" && algorithm !== "sha512") {
    issues.push(`${at}.algorithm must be "sha256", "sha1" or "sha512", got ${show(algorithm)}`);
  }
  if (encoding !== "hex" && encoding !== "base64") {
    issues.push(`${at}.encoding must be "hex" or "base64", got ${show(encoding)}`);
  }
  if (typeof prefix !== "string") {
    issues.push(`${at}.prefix must be a string like "sha256=", got ${show(prefix)}`);
  }
  if (typeof signed !== "string" || !signed.includes("{body}")) {
    issues.push(
      `${at}.signed must be a template containing {body}, like "{header:X-Timestamp}.{body}", got ${
        show(signed)
      }`,
    );
  }
  return { header, algorithm, encoding, prefix, signed } as GenericHmacSettings;
}

function _secrets(value: unknown, at: string, issues: Issues): string[] {
  if (value === undefined) return [];
  const list = Array.isArray(value) ? value : [value];
  const out: string[] = [];
  list.forEach((s, i) => {
    const where = Array.isArray(value) ? `${at}[${i}]` : at;
    if (typeof s !== "string" || s === "") {
      issues.push(
        `${where} must be a non-empty string, got ${show(s)}` +
          (s === undefined
            ? " (is the environment variable set? process.env.NAME and Deno.env.get() give undefined when not)"
            : s === ""
            ? ": set the secret the sender signs with (or leave the field out to store its events unchecked)"
            : ""),
      );
    } else out.push(s);
  });
  return out;
}

function _string(value: unknown, where: string, issues: Issues): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value === "") {
    issues.push(`${where} must be a non-empty string, got ${show(value)}`);
    return undefined;
  }
  return value;
}

/** Checks an endpoint's signing fields; `undefined` when it has none. */
export function checkProvider(
  entry: Record<string, unknown>,
  at: string,
  issues: Issues,
): ProviderSettings | undefined {
  if (!PROVIDER_FIELDS.some((f) => entry[f] !== undefined)) return undefined;
  const settings: {
    -readonly [K in keyof ProviderSettings]: ProviderSettings[K];
  } = {
    secrets: _secrets(entry.secret, `${at}.secret`, issues),
    tolerance: DEFAULT_TOLERANCE,
    enforce: false,
  };
  if (entry.provider !== undefined) {
    const read = readProvider(entry.provider, false);
    if (read.provider === undefined) {
      issues.push(
        `${at}.provider ${show(entry.provider)} is not a known provider` +
          (read.near ? `: did you mean "${read.near}"?` : "") + ` (known: ${read.names.join(", ")})`,
      );
    } else settings.provider = read.provider;
  }
  const publicKey = _string(entry.publicKey, `${at}.publicKey`, issues);
  if (publicKey !== undefined) settings.publicKey = publicKey;
  const verifyToken = _string(entry.verifyToken, `${at}.verifyToken`, issues);
  if (verifyToken !== undefined) settings.verifyToken = verifyToken;
  if (entry.tolerance !== undefined) {
    const t = entry.tolerance;
    if (typeof t !== "number" || !Number.isFinite(t) || t <= 0) {
      issues.push(`${at}.tolerance must be a positive number of seconds, like 300, got ${show(t)}`);
    } else settings.tolerance = t;
  }
  settings.enforce = optionalBoolean(entry.enforce, `${at}.enforce`, issues, false);
  const hmac = _hmac(entry.hmac, `${at}.hmac`, issues);
  if (hmac !== undefined) settings.hmac = hmac;
  if (settings.enforce && settings.secrets.length === 0 && settings.publicKey === undefined) {
    issues.push(`${at}.enforce needs a secret or publicKey to check signatures with: add \`secret\``);
  }
  return settings;
}
