/**
 * Standard Webhooks and Svix: `webhook-id`, `webhook-timestamp` and
 * `webhook-signature: v1,<base64 HMAC-SHA256(key, "id.ts.body")> ...`
 * (Svix: the same under `svix-*`), the key being the base64 after
 * `whsec_`; `v1a,<base64 ed25519>` signatures are checked with a
 * `whpk_` public key. Tolerance 5 minutes. Re-signed on replay.
 * @module
 */
import type { Verdict } from "../../event/record.ts";
import { checkHmac, expired, fresh, malformed, noSecret, unsigned, valid } from "../_verdict.ts";
import { signWithKey, verifyEd25519 } from "../_ed25519.ts";
import { fromBase64, hmacParts, toBase64 } from "../hmac.ts";
import type { Provider, RequestView } from "../types.ts";
import { jsonString } from "../view.ts";
import { concatBytes } from "../../bytes.ts";

/** The HMAC key of a `whsec_` secret (a bare secret is read as base64 too, like the libraries do). */
export function standardKey(secret: string): Uint8Array {
  return fromBase64(secret.replace(/^whsec_/, "")) ?? new TextEncoder().encode(secret);
}

function _prefix(view: RequestView): "webhook" | "svix" | undefined {
  if (view.header("webhook-signature") !== undefined || view.header("webhook-id") !== undefined) {
    return "webhook";
  }
  if (view.header("svix-signature") !== undefined || view.header("svix-id") !== undefined) return "svix";
  return undefined;
}

async function _verify(view: RequestView, settings: Parameters<Provider["verify"]>[1]): Promise<Verdict> {
  const p = _prefix(view) ?? "webhook";
  const scheme = p === "svix" ? "svix-v1" : "standard-webhooks-v1";
  const header = view.header(`${p}-signature`);
  if (header === undefined) return unsigned(scheme, `${p}-signature header`);
  if (settings.secrets.length === 0 && settings.publicKey === undefined) return noSecret(scheme);
  const id = view.header(`${p}-id`);
  const ts = view.header(`${p}-timestamp`);
  if (id === undefined || ts === undefined || !/^\d+$/.test(ts)) {
    return malformed(scheme, `${p}-id or ${p}-timestamp is missing or not a unix time`);
  }
  const pairs = header.split(" ").map((s) => s.split(",") as [string, string | undefined]);
  const v1 = pairs.filter(([v]) => v === "v1").map(([, s]) => fromBase64(s ?? "")).filter((s) =>
    s !== undefined
  );
  const v1a = pairs.filter(([v]) => v === "v1a").map(([, s]) => fromBase64(s ?? "")).filter((s) =>
    s !== undefined
  );
  if (v1.length === 0 && v1a.length === 0) {
    return malformed(
      scheme,
      `expected "v1,<base64>" signatures separated by spaces, got "${header.slice(0, 80)}"`,
    );
  }
  let verdict: Verdict | undefined;
  if (settings.publicKey !== undefined && v1a.length > 0) {
    const key = fromBase64(settings.publicKey.replace(/^whpk_/, "")) ?? new Uint8Array();
    const data = concatBytes([new TextEncoder().encode(`${id}.${ts}.`), view.body]);
    for (const sig of v1a) if (await verifyEd25519(key, sig, data)) verdict = valid(`${scheme}a`, 0, 1);
    verdict ??= {
      status: "invalid",
      scheme: `${scheme}a`,
      reason: "the v1a signature does not verify with the configured publicKey",
    };
  }
  if (verdict?.status !== "valid" && settings.secrets.length > 0 && v1.length > 0) {
    verdict = checkHmac(
      scheme,
      view,
      { ...settings, secrets: settings.secrets },
      v1,
      (body, secret) => hmacParts("sha256", standardKey(secret), [`${id}.${ts}.`, body]),
    );
  }
  if (verdict === undefined) return noSecret(scheme, v1a.length > 0 ? "public key" : "secret");
  if (verdict.status === "valid" && !fresh(Number(ts), view.receivedAt, settings.tolerance)) {
    return expired(verdict.scheme ?? scheme, Number(ts), view.receivedAt, settings.tolerance);
  }
  return verdict;
}

/** The Standard Webhooks / Svix provider. */
export const standardWebhooks: Provider = {
  name: "standard-webhooks",
  title: "Standard Webhooks / Svix",
  signatureHeaders: ["webhook-signature", "svix-signature"],
  timestamped: true,
  detect: (view) => _prefix(view) !== undefined,
  eventType: (view) => jsonString(view, "type") ?? jsonString(view, "eventType") ?? jsonString(view, "event"),
  verify: _verify,
  async sign(request, privateKey, now) {
    const get = (n: string) => request.headers.find(([k]) => k.toLowerCase() === n)?.[1];
    const p = get("svix-id") !== undefined && get("webhook-id") === undefined ? "svix" : "webhook";
    const id = get(`${p}-id`) ?? `msg_${crypto.randomUUID()}`;
    const ts = String(Math.floor(now.getTime() / 1000));
    const data = concatBytes([new TextEncoder().encode(`${id}.${ts}.`), request.body]);
    const sig = toBase64(await signWithKey(privateKey, data));
    const earlier = get(`${p}-signature`);
    const drop = new RegExp(`^${p}-(id|timestamp|signature)$`, "i");
    const v1 = earlier !== undefined && earlier.startsWith("v1,") ? `${earlier} ` : "";
    return [
      ...request.headers.filter(([k]) => !drop.test(k)),
      [`${p}-id`, id],
      [`${p}-timestamp`, ts],
      [`${p}-signature`, `${v1}v1a,${sig}`],
    ];
  },
  resign(request, settings, now) {
    const svix = request.headers.some(([k]) => /^svix-/i.test(k)) &&
      !request.headers.some(([k]) => /^webhook-signature$/i.test(k));
    const p = svix ? "svix" : "webhook";
    const id = request.headers.find(([k]) => k.toLowerCase() === `${p}-id`)?.[1] ??
      `msg_${crypto.randomUUID()}`;
    const ts = String(Math.floor(now.getTime() / 1000));
    const sig = toBase64(
      hmacParts("sha256", standardKey(settings.secrets[0]!), [`${id}.${ts}.`, request.body]),
    );
    const drop = new RegExp(`^${p}-(id|timestamp|signature)$`, "i");
    return [
      ...request.headers.filter(([k]) => !drop.test(k)),
      [`${p}-id`, id],
      [`${p}-timestamp`, ts],
      [`${p}-signature`, `v1,${sig}`],
    ];
  },
};

/** This folder's provider, for the index (src/providers/index.ts). */
export const provider: Provider = standardWebhooks;
