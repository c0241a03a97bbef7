/**
 * GitHub: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256(secret, body)>`, and
 * the legacy `X-Hub-Signature: sha1=...`. Event type from `X-GitHub-Event`
 * (and the body's `action`). Body-only: a replay needs no re-signing.
 * @module
 */
import { checkHmac, malformed, noSecret, unsigned } from "../_verdict.ts";
import { fromHex, hmac, toHex } from "../hmac.ts";
import type { Provider, RequestView } from "../types.ts";
import { jsonString } from "../view.ts";

/**
 * Whether the body may hold an `action` key, so that parsing it can tell. A
 * JSON body whose text has neither `action` nor a `\u` escape (which could
 * spell the key) holds none: a push, the most frequent delivery, is then typed
 * without parsing its whole body (about a tenth of `dev`'s CPU per request).
 * Form-encoded deliveries always go through the parse of their `payload`.
 */
export function mayHaveAction(view: Pick<RequestView, "text" | "header">): boolean {
  if (/urlencoded/i.test(view.header("content-type") ?? "")) return true;
  const text = view.text();
  return text.includes("action") || text.includes("\\u");
}

/** The GitHub provider. */
export const github: Provider = {
  name: "github",
  title: "GitHub",
  signatureHeaders: ["x-hub-signature-256", "x-hub-signature"],
  timestamped: false,
  detect: (view) => view.header("x-github-event") !== undefined,
  eventType: (view) => {
    const event = view.header("x-github-event");
    if (event === undefined) return undefined;
    const action = mayHaveAction(view) ? jsonString(view, "action") : undefined;
    return action === undefined ? event : `${event}.${action}`;
  },
  verify(view, settings) {
    const v256 = view.header("x-hub-signature-256");
    const v1 = view.header("x-hub-signature");
    const [scheme, header, algorithm] = v256 !== undefined
      ? ["github-sha256", v256, "sha256" as const]
      : ["github-sha1", v1, "sha1" as const];
    if (header === undefined) return unsigned("github-sha256", "X-Hub-Signature-256 header");
    if (settings.secrets.length === 0) return noSecret(scheme);
    const m = header.match(/^(sha256|sha1)=(.*)$/);
    const sig = m?.[2] === undefined ? undefined : fromHex(m[2]);
    if (m?.[1] !== algorithm || sig === undefined) {
      return malformed(scheme, `expected "${algorithm}=<hex digest>", got "${header.slice(0, 80)}"`);
    }
    return checkHmac(scheme, view, settings, [sig], (body, secret) => hmac(algorithm, secret, body));
  },
  resign(request, settings) {
    const secret = settings.secrets[0]!;
    const headers = request.headers.filter(([k]) => !/^x-hub-signature(-256)?$/i.test(k));
    headers.push(["X-Hub-Signature-256", `sha256=${toHex(hmac("sha256", secret, request.body))}`]);
    if (request.headers.some(([k]) => k.toLowerCase() === "x-hub-signature")) {
      headers.push(["X-Hub-Signature", `sha1=${toHex(hmac("sha1", secret, request.body))}`]);
    }
    return headers;
  },
};

/** This folder's provider, for the index (src/providers/index.ts). */
export const provider: Provider = github;
