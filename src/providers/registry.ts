/**
 * Every known provider's verification, in detection order (the most
 * specific first; the generic fallback last): each folder's `verify.ts`,
 * loaded through src/providers/index.ts when this module is first imported
 * (it is not in the start-up graph of commands that only need names).
 * @module
 */
import { canonicalProvider } from "./catalog.ts";
import { PROVIDER_INDEX } from "./index.ts";
import type { Provider } from "./types.ts";

/** The providers, in the order they are tried. */
export const PROVIDERS: readonly Provider[] = await Promise.all(
  Object.values(PROVIDER_INDEX).map(async (parts) => (await parts.verify()).provider),
);

/** The provider of a name or alias, or `undefined`. */
export function providerNamed(name: string): Provider | undefined {
  const key = canonicalProvider(name);
  return PROVIDERS.find((p) => p.name === key);
}
