/**
 * Every known provider's verification, in detection order (the most
 * specific first; the generic fallback last): each folder's `verify.ts`,
 * in src/providers/index.ts's order (gathered in verifiers.gen.ts).
 * @module
 */
import { canonicalProvider } from "./catalog.ts";
import type { Provider } from "./types.ts";
import { VERIFIERS } from "./verifiers.gen.ts";

/** The providers, in the order they are tried. */
export const PROVIDERS: readonly Provider[] = VERIFIERS;

/** The provider of a name or alias, or `undefined`. */
export function providerNamed(name: string): Provider | undefined {
  const key = canonicalProvider(name);
  return PROVIDERS.find((p) => p.name === key);
}
