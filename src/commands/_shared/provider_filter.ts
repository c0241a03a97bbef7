/**
 * `--provider`'s value checked and made canonical, for the filters (./filters.ts loads this only when the
 * option is given: a command's declaration loads nothing but the CLI engine).
 * @module
 */
import { UsageError } from "../../errors.ts";
import { canonicalProvider, CATALOG } from "../../providers/catalog.ts";
import { safeLine } from "../../text/sanitize.ts";
import { didYouMean } from "../../text/suggest.ts";

/**
 * The canonical name events carry for `name` (an alias such as `svix` is `standard-webhooks`).
 * @throws {UsageError} for a name no provider has, as a mistyped `--verdict` or `--endpoint` is.
 */
export function providerFilter(name: string): string {
  const known = canonicalProvider(name);
  if (known !== undefined) return known;
  const names = Object.keys(CATALOG);
  throw new UsageError(
    `--provider must name a provider, got "${safeLine(name)}"${
      didYouMean(name.toLowerCase(), names) || "."
    } ` +
      `Known: ${names.join(", ")}.`,
  );
}
