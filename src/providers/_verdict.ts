/**
 * Verdicts and the checked reasons of `invalid`: when no secret matches,
 * the likely causes are tried one by one (a secret with stray whitespace,
 * JSON re-serialized on the way, a truncated body) before saying the
 * secret is wrong. Shared by the provider files. Pure.
 * @module
 */
import type { Verdict } from "../event/record.ts";
import { safeEqual } from "./hmac.ts";
import type { ProviderSettings, RequestView } from "./types.ts";

/** Signature headers are absent. */
export function unsigned(scheme: string, what: string): Verdict {
  return { status: "unsigned", scheme, reason: `no ${what} on the request` };
}

/** Signed, but the endpoint has nothing to check with. */
export function noSecret(scheme: string, what = "secret"): Verdict {
  return {
    status: "no-secret",
    scheme,
    reason: `signed, but the endpoint has no ${what} to check it with: add \`${
      what === "public key" ? "publicKey" : "secret"
    }\` to the endpoint in hooktap.config.ts`,
  };
}

/** The signature header cannot be parsed. */
export function malformed(scheme: string, why: string): Verdict {
  return { status: "invalid", scheme, reason: `the signature header is malformed: ${why}` };
}

/** A matching signature; says which secret when several are configured. */
export function valid(scheme: string, index: number, count: number): Verdict {
  return count > 1
    ? { status: "valid", scheme, reason: `matches secret #${index + 1} of ${count}` }
    : { status: "valid", scheme };
}

/** A matching signature over a timestamp outside the tolerance. */
export function expired(scheme: string, signedAt: number, now: Date, tolerance: number): Verdict {
  const age = Math.round(now.getTime() / 1000 - signedAt);
  const when = age >= 0 ? `${_span(age)} before it arrived` : `${_span(-age)} in the future`;
  return {
    status: "expired",
    scheme,
    reason: `the signature is right but its timestamp is ${when}, outside the ${tolerance} s tolerance ` +
      `(a replayed delivery, or a clock off); a replay with --resign signs it afresh`,
  };
}

function _span(seconds: number): string {
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  if (seconds < 172800) return `${Math.round(seconds / 3600)} h`;
  return `${Math.round(seconds / 86400)} days`;
}

/** Whether a timestamp (seconds) is within `tolerance` of `now`. */
export function fresh(signedAt: number, now: Date, tolerance: number): boolean {
  return Math.abs(now.getTime() / 1000 - signedAt) <= tolerance;
}

const encoder = new TextEncoder();

/**
 * Checks `signatures` against what each secret signs over the body; the
 * verdict, with a checked reason when none matches. `sign` computes the
 * expected signature of a body with a secret.
 */
export function checkHmac(
  scheme: string,
  view: RequestView,
  settings: ProviderSettings,
  signatures: readonly Uint8Array[],
  sign: (body: Uint8Array, secret: string) => Uint8Array,
): Verdict {
  const matches = (body: Uint8Array, secret: string) => {
    const expected = sign(body, secret);
    let found = false;
    for (const s of signatures) if (safeEqual(s, expected)) found = true;
    return found;
  };
  const { secrets } = settings;
  for (let i = 0; i < secrets.length; i++) {
    if (matches(view.body, secrets[i]!)) return valid(scheme, i, secrets.length);
  }
  return mismatch(scheme, view, secrets, matches);
}

/** The checked reason why no secret produced the signature. */
export function mismatch(
  scheme: string,
  view: RequestView,
  secrets: readonly string[],
  matches: (body: Uint8Array, secret: string) => boolean,
): Verdict {
  const invalid = (reason: string): Verdict => ({ status: "invalid", scheme, reason });
  for (const secret of secrets) {
    const trimmed = secret.trim();
    if (trimmed !== secret && matches(view.body, trimmed)) {
      return invalid(
        "the secret is wrong: the configured secret has whitespace around it (a newline from a .env " +
          "file?); trimmed, it matches. Trim it in hooktap.config.ts",
      );
    }
  }
  const parsed = view.json();
  if (parsed !== undefined) {
    const forms: [string, string][] = [
      ["JSON.stringify(JSON.parse(body))", JSON.stringify(parsed)],
      ["JSON.stringify(JSON.parse(body), null, 2)", JSON.stringify(parsed, null, 2)],
    ];
    for (const [how, form] of forms) {
      if (form === view.text()) continue;
      const bytes = encoder.encode(form);
      for (const secret of secrets) {
        if (matches(bytes, secret)) {
          return invalid(
            `the body was changed on the way: it was signed as ${how}, and arrived re-serialized ` +
              "(a proxy or framework parsed and re-encoded the JSON); verify the raw bytes as sent",
          );
        }
      }
    }
  }
  const declared = view.header("content-length");
  if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) !== view.body.length) {
    return invalid(
      `the body was changed on the way: Content-Length says ${declared} bytes, ${view.body.length} arrived`,
    );
  }
  const n = secrets.length;
  const intact = parsed !== undefined
    ? "the body arrived whole and parses as JSON"
    : "the body arrived whole";
  return invalid(
    `the secret is wrong: ${n === 1 ? "the configured secret does" : `none of the ${n} secrets does`} ` +
      `not produce this signature, and ${intact}, re-serialized forms do not match either. ` +
      "Use this webhook's signing secret (not an API key) as the endpoint's `secret`",
  );
}
