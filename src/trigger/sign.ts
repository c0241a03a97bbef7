/**
 * Signing a triggered delivery through its provider's own code
 * (src/providers/): `resign` with the endpoint's secret for shared-secret
 * schemes, `sign` with hooktap's trigger key for key-pair schemes. The
 * signed headers take the places the draft keeps for them, so names, case
 * and order are the provider's.
 * @module
 */
import { lazyImport } from "../cli/lazy.ts";
import { PROVIDER_INDEX } from "../providers/index.ts";
import { PROVIDER_METAS } from "../providers/metas.gen.ts";
import type { GenericHmacSettings, Provider, ProviderSettings, ResignRequest } from "../providers/types.ts";
import { KEYED_PROVIDERS } from "../providers/signing.ts";
import type { TriggerKeys } from "./keys.ts";

/** Each provider's verification module by canonical name, imported only for the provider triggered (src/providers/index.ts). */
const PROVIDER_MODULES: Readonly<Record<string, () => Promise<Provider>>> = Object.fromEntries(
  Object.entries(PROVIDER_INDEX).map(([folder, parts]) => [
    PROVIDER_METAS[folder]!.name,
    async () => (await parts.verify()).provider,
  ]),
);

const PROVIDER_METAS_BY_NAME = new Map(Object.values(PROVIDER_METAS).map((m) => [m.name, m]));

/** Providers that sign with a shared secret (hooktap can re-sign them), besides Graph's clientState. */
const SECRET_SIGNED = new Set(
  Object.values(PROVIDER_METAS).filter((m) => m.resigns && m.triggerable).map((m) => m.name),
);

/** What a delivery is signed with. */
export interface SigningMaterial {
  /** The endpoint's secret (or `--secret`). */
  secret?: string;
  /** The endpoint's generic HMAC scheme (provider `hmac`). */
  hmac?: GenericHmacSettings;
  /** hooktap's key pairs, for Discord, SendGrid and Standard Webhooks without a secret. */
  keys?: TriggerKeys;
}

/** How a delivery was signed: the headers, and the scheme's name or why it is unsigned. */
export interface Signed {
  headers: [string, string][];
  /** `secret`, `key`, or `none` (sent unsigned). */
  with: "secret" | "key" | "none";
}

/** Whether `provider` can be signed with `material` (and how). */
export function signingMode(provider: string, material: SigningMaterial): Signed["with"] {
  if (provider === "msgraph") return material.secret !== undefined ? "secret" : "none";
  if (
    SECRET_SIGNED.has(provider) && material.secret !== undefined && (provider !== "hmac" || material.hmac)
  ) {
    return "secret";
  }
  if (KEYED_PROVIDERS.has(provider) && material.keys !== undefined) return "key";
  return "none";
}

/** Puts `signed` headers in the places `draft` keeps for them; empty placeholders left unsigned are dropped. */
export function placeHeaders(
  draft: readonly [string, string][],
  signed: readonly [string, string][],
): [string, string][] {
  const lower = new Map<string, [string, string]>();
  for (const h of signed) lower.set(h[0].toLowerCase(), h);
  const out: [string, string][] = [];
  const used = new Set<string>();
  for (const [k, v] of draft) {
    const s = lower.get(k.toLowerCase());
    if (s !== undefined) {
      out.push([k, s[1]]);
      used.add(k.toLowerCase());
    } else if (v !== "") out.push([k, v]);
  }
  for (const [k, v] of signed) if (!used.has(k.toLowerCase())) out.push([k, v]);
  return out;
}

/** Signs `request` (its headers the draft's, placeholders included) as `provider` does, at `now`. */
export async function signDelivery(
  provider: string,
  request: ResignRequest,
  material: SigningMaterial,
  now: Date,
  tolerance = 300,
): Promise<Signed> {
  const mode = signingMode(provider, material);
  const p = mode === "none" ? undefined : await PROVIDER_MODULES[provider]?.();
  const filled = request.headers.filter(([, v]) => v !== "");
  let signed: [string, string][] = filled;
  if (mode === "secret" && p?.resign !== undefined) {
    const settings: ProviderSettings = {
      provider,
      secrets: [material.secret!],
      tolerance,
      enforce: false,
      ...(material.hmac ? { hmac: material.hmac } : {}),
    };
    // The provider's own code, its digests computed with WebCrypto: trigger never loads node:crypto.
    const { hmac, toHex, withWebCrypto } = await lazyImport<typeof import("../providers/hmac.ts")>(
      "src/providers/hmac.ts",
    );
    const resign = p.resign;
    // GitHub and Meta send the legacy SHA-1 header beside the SHA-256 one: its digest is asked for in the
    // same pass, so both are computed side by side.
    const legacy = PROVIDER_METAS_BY_NAME.get(provider)?.signatureHeaders.includes("x-hub-signature");
    const [headers, sha1] = await withWebCrypto(() =>
      [
        resign({ ...request, headers: filled }, settings, now),
        legacy ? `sha1=${toHex(hmac("sha1", material.secret!, request.body))}` : undefined,
      ] as const
    );
    const resigned = await headers;
    signed = sha1 === undefined
      ? resigned
      : [...resigned.filter(([k]) => k.toLowerCase() !== "x-hub-signature"), ["X-Hub-Signature", sha1]];
  } else if (mode === "key" && p?.sign !== undefined) {
    const { privateKeyFor } = await lazyImport<typeof import("./keys.ts")>("src/trigger/keys.ts");
    signed = await p.sign({ ...request, headers: filled }, privateKeyFor(provider, material.keys!)!, now);
  }
  return { headers: placeHeaders(request.headers, signed), with: mode };
}
