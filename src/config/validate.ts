/**
 * Checks the shape of a config's default export and resolves it. Pure: no
 * I/O. Every problem is collected, each with its field path and the fix;
 * keys that are not fields are reported at every level, with a suggestion
 * when one is a likely typo.
 * @module
 */
import { ConfigError } from "../errors.ts";
import { checkKeys, isRecord, type Issues, optionalCount, show } from "./_check.ts";
import { checkEndpoints } from "./endpoint.ts";
import { checkUi } from "./ui.ts";
import { checkServer } from "./server.ts";
import { checkRetention } from "./retention.ts";
import { checkHub } from "./hub.ts";
import { checkMcp } from "./mcp.ts";
import { type Config, DEFAULT_MAX_BODY_SIZE, type ResolvedConfig } from "./types.ts";

export { normalizePath } from "./endpoint.ts";

/** Top-level fields of a config. */
export const CONFIG_FIELDS: readonly string[] = [
  "port",
  "endpoints",
  "maxBodySize",
  "ui",
  "retention",
  "hub",
  "server",
  "mcp",
];

function checkPort(port: unknown, issues: Issues): number {
  if (typeof port !== "number" || !Number.isInteger(port) || port < 0 || port > 65535) {
    issues.push(
      `port must be an integer from 0 to 65535 (0 picks a free port), got ${show(port)}: set \`port: 8787\``,
    );
    return 0;
  }
  return port;
}

/**
 * Validates a config's default export and fills its defaults.
 * @throws {ConfigError} listing every problem, each with its field path.
 *
 * @example
 * ```ts
 * import { validateConfig } from "@hooktap/hooktap/testing";
 * const config = validateConfig({ port: 8787, endpoints: [{ name: "gh", path: "/gh", method: "post" }] }, null);
 * console.log(config.endpoints[0]?.methods); // ["POST"]
 * ```
 */
export function validateConfig(input: unknown, file: string | null): ResolvedConfig {
  const where = file ?? "the built-in starter config";
  if (!isRecord(input)) {
    throw new ConfigError(
      `${where} must default-export an object { port, endpoints }, got ${
        input === undefined ? "no default export" : show(input)
      }`,
      [`add: export default { port: 8787, endpoints: [{ name: "default", path: "/webhook", method: "POST" }] };`],
    );
  }
  const issues: Issues = [];
  const warnings: Issues = [];
  const config = input as Partial<Config>;
  checkKeys(input, CONFIG_FIELDS, "", "a config", issues);
  const port = checkPort(config.port, issues);
  const maxBodySize = optionalCount(
    config.maxBodySize,
    "maxBodySize",
    "use 26214400 for 25 MiB",
    issues,
    DEFAULT_MAX_BODY_SIZE,
  );
  const endpoints = checkEndpoints(config.endpoints, { maxBodySize }, issues, warnings);
  const ui = checkUi(config.ui, port, issues);
  const retention = checkRetention(config.retention, issues);
  const hub = checkHub(config.hub, issues);
  const mcp = checkMcp(config.mcp, issues);
  const largest = endpoints.reduce((m, e) => Math.max(m, e.maxBodySize), maxBodySize);
  const server = checkServer(config.server, largest, issues);
  if (issues.length > 0) {
    const n = issues.length;
    throw new ConfigError(`${where} has ${n} problem${n === 1 ? "" : "s"}:`, issues);
  }
  return {
    port,
    endpoints,
    maxBodySize,
    ui,
    server,
    ...(retention ? { retention } : {}),
    ...(hub ? { hub } : {}),
    ...(mcp ? { mcp } : {}),
    file,
    warnings,
  };
}
