/**
 * hooktap receives webhooks on your own machine. This module is what a
 * config file needs: {@linkcode defineConfig}, the config types and the
 * errors. It loads no `node:` module and no npm package.
 *
 * The test library (`startReceiver`, `waitFor`, fixtures, `replayEvent`) is
 * `@hooktap/hooktap/testing`; the command line is `@hooktap/hooktap/cli`
 * (`deno run -A jsr:@hooktap/hooktap/cli dev`). This module does not run
 * the CLI, and imports nothing of it.
 *
 * @example Type a config file
 * ```ts
 * import { defineConfig } from "@hooktap/hooktap";
 * export default defineConfig({
 *   port: 8787,
 *   endpoints: [{ name: "stripe", path: "/stripe", method: "POST" }],
 * });
 * ```
 *
 * @module
 */
export { defineConfig } from "./src/config/define.ts";
export type {
  Config,
  Endpoint,
  EndpointConfig,
  ForwardConfig,
  ForwardTargetConfig,
  ForwardWhen,
  HmacConfig,
  ResolvedConfig,
  RetentionConfig,
} from "./src/config/types.ts";
export type { ResolvedResponse, ResponseConfig, ResponseFunction } from "./src/config/response.ts";
export type { ResolvedUi, UiConfig } from "./src/config/ui.ts";
export type { HubConfig, ResolvedHub } from "./src/config/hub.ts";
export type { McpConfig, ResolvedMcp } from "./src/config/mcp.ts";
export type { ResolvedServer, ServerConfig } from "./src/config/server.ts";
export type { ResolvedForward, ResolvedWhen, Retention } from "./src/ports.ts";
export type { DeliveryState, EventFilter as WhenFilter } from "./src/query/event_filter.ts";
export type {
  CapturedEvent,
  ForwardMark,
  HubMark,
  StoredResponse,
  TriggerMark,
  Verdict,
  VerdictStatus,
} from "./src/event/record.ts";
export {
  ConfigError,
  HooktapError,
  NetworkError,
  NotFoundError,
  ServeError,
  StoreError,
  UsageError,
} from "./src/errors.ts";
