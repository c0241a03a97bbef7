/**
 * A provider's name as a user gives it (`--provider` and mcp's `provider`
 * filters, an endpoint's `provider:` in the config): the canonical name events
 * carry (any case; an alias such as `svix` is `standard-webhooks`), or, for a
 * name no provider has, the nearest name or alias and the names to list. The
 * filters share their message ({@linkcode providerFilter}); the config words
 * its own with its field path (./provider.ts).
 * @module
 */
import { UsageError } from "../errors.ts";
import { canonicalProvider, CATALOG, PROVIDER_ALIASES } from "../providers/catalog.ts";
import { safeLine } from "../text/sanitize.ts";
import { closest } from "../text/suggest.ts";

/** What {@linkcode readProvider} found: the canonical name, or what to say of an unknown one. */
export type ProviderName =
  | { provider: string }
  | {
    provider?: undefined;
    /** The provider name or alias nearest to the one given, if one is near. */
    near: string | undefined;
    /** The names a message lists. */
    names: string[];
  };

/**
 * Reads `name` (a config value may be anything: only a string can name a provider).
 * @param listGeneric whether the names listed include `generic`: a filter's do (it picks the events of no known sender); the
 * config's do not (an endpoint gets it from `hmac`). @default true
 */
export function readProvider(name: unknown, listGeneric = true): ProviderName {
  const known = typeof name === "string" ? canonicalProvider(name) : undefined;
  if (known !== undefined) return { provider: known };
  const names = Object.keys(CATALOG).filter((n) => listGeneric || n !== "generic");
  const near = typeof name === "string"
    ? closest(name.toLowerCase(), [...names, ...Object.keys(PROVIDER_ALIASES)])
    : undefined;
  return { near, names };
}

/**
 * The canonical name events carry for the provider filter `name`, given as `option` (`--provider`, or mcp's
 * `provider`).
 * @throws {UsageError} for a name no provider has, with the nearest one and the known names, as a mistyped
 * `--verdict` or `--endpoint` is.
 */
export function providerFilter(name: string, option: string): string {
  const read = readProvider(name);
  if (read.provider !== undefined) return read.provider;
  throw new UsageError(
    `${option} must name a provider, got "${safeLine(name)}"${
      read.near === undefined ? "." : `: did you mean ${read.near}?`
    } Known: ${read.names.join(", ")}.`,
  );
}
