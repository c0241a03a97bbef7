/**
 * Finding where a trigger goes: the endpoint for the provider in the config
 * (or the one named), on the `hooktap dev` running in this directory
 * (../store/read/dev_lock.ts `runningDev` finds it and its port).
 * @module
 */
import { NotFoundError, UsageError } from "../errors.ts";
import type { Endpoint, ResolvedConfig } from "../config/types.ts";
import { CATALOG } from "../providers/catalog.ts";
import { expandTarget } from "../route/expand.ts";
import { closest } from "../text/suggest.ts";
import { suggestCommand } from "../text/command_line.ts";
import { configWords } from "../text/config_words.ts";

/**
 * The endpoint a trigger of `provider` goes to: the one named, else the first
 * that declares the provider, else the first that declares none and is named
 * after the provider (`name: "stripe"`, any case), else the first that
 * declares none (it detects the sender).
 * @throws {UsageError} when the named endpoint does not exist (a mistyped option, exit 2).
 * @throws {NotFoundError} when none fits, saying how to add one.
 */
export function endpointFor(config: ResolvedConfig | null, provider: string, name?: string): Endpoint {
  const endpoints = config?.endpoints ?? [];
  if (name !== undefined) {
    const found = endpoints.find((e) => e.name === name);
    if (found !== undefined) return found;
    const near = closest(name, endpoints.map((e) => e.name));
    throw new UsageError(
      `No endpoint named "${name}" in ${config?.file ?? "hooktap.config.ts"}${
        near ? ` (did you mean ${near}?)` : ""
      }. ` +
        `Endpoints: ${endpoints.map((e) => e.name).join(", ") || "none"}.`,
    );
  }
  const declared = endpoints.find((e) => e.signing?.provider === provider);
  const undeclared = endpoints.filter((e) => e.signing?.provider === undefined);
  const named = undeclared.find((e) => e.name.toLowerCase() === provider.toLowerCase());
  const found = declared ?? named ?? undeclared[0];
  if (found !== undefined) return found;
  const title = CATALOG[provider]?.title ?? provider;
  const file = config?.file ?? null;
  throw new NotFoundError(
    `No endpoint ${
      file === null ? "of the built-in starter config (no hooktap.config.ts here)" : `in ${file}`
    } receives ${title} events. Add one to \`endpoints\`${
      file === null ? ` (${suggestCommand(["init"])} writes the file)` : ""
    }:\n` +
      `  { name: "${provider}", path: "/${provider}", method: "POST", provider: "${provider}", ` +
      `secret: process.env.${provider.toUpperCase().replace(/-/g, "_")}_WEBHOOK_SECRET }\n` +
      (file === null
        ? `then (re)start dev: ${suggestCommand(["dev"])}`
        : `then save it (a running dev reloads it; else start one: ${
          suggestCommand(["dev", ...configWords(file)])
        })`) +
      ", or send straight to your app with --to URL.",
  );
}

/**
 * The URL of `endpoint` on the dev at `port`: a pattern's `:provider` and `*` are filled in.
 * @throws {UsageError} when the path has other parameters (give --to).
 */
export function endpointUrl(endpoint: Endpoint, port: number, provider: string): string {
  const path = expandTarget(endpoint.path, { provider, "0": provider });
  if (/:[A-Za-z_$]|\*/.test(path)) {
    throw new UsageError(
      `Endpoint "${endpoint.name}" answers the pattern ${endpoint.path}; hooktap cannot choose its ` +
        "parameters: give --to with the full URL.",
    );
  }
  return `http://127.0.0.1:${port}${path}`;
}
