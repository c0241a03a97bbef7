import type { Config } from "./types.ts";

/**
 * Types a config object; returns it unchanged. A plain object works too.
 *
 * @example
 * ```ts
 * import { defineConfig } from "@hooktap/hooktap";
 * export default defineConfig({
 *   port: 8787,
 *   endpoints: [{ name: "github", path: "/github", method: "POST" }],
 * });
 * ```
 */
export function defineConfig<const T extends Config>(config: T): T {
  return config;
}
