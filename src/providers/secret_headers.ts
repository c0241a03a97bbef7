/**
 * The headers that carry a provider's signature or secret token: a fixture
 * export masks them so that no reusable secret-derived value is shared.
 * From the providers' facts (src/providers/<folder>/meta.ts).
 * @module
 */
import { providerFacts } from "./catalog.ts";
import { PROVIDER_METAS } from "./metas.gen.ts";

/**
 * The signature headers (lower case) of `provider`, or of every known
 * provider when it is `undefined` or unknown.
 *
 * @example
 * ```ts
 * import { secretHeaderNames } from "@hooktap/hooktap/testing";
 * console.log(secretHeaderNames("github")); // ["x-hub-signature-256", "x-hub-signature"]
 * ```
 */
export function secretHeaderNames(provider?: string): string[] {
  const one = provider === undefined ? undefined : providerFacts(provider);
  const list = one === undefined ? Object.values(PROVIDER_METAS) : [one];
  return [...new Set(list.flatMap((p) => p.signatureHeaders))];
}
