/**
 * hooktap receives webhooks on your own machine. Run it as a CLI
 * (`deno run -A jsr:@hooktap/hooktap dev`), or import this module to type
 * your config and to embed the receiver in your own tests.
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
export type { Config, Endpoint, EndpointConfig, ResolvedConfig } from "./src/config/types.ts";
export { validateConfig } from "./src/config/validate.ts";
export { loadConfig, type LoadConfigOptions } from "./src/config/load.ts";
export type { CapturedEvent } from "./src/event/record.ts";
export { decodeBody, parseEventLine } from "./src/event/record.ts";
export {
  createHandler,
  type EventSink,
  type Handler,
  type HandlerOptions,
  METHOD_NOT_ALLOWED_MESSAGE,
  NOT_FOUND_MESSAGE,
  type RequestOutcome,
} from "./src/receiver/handler.ts";
export { type EventWriter, type EventWriterOptions, openEventWriter } from "./src/store/write/writer.ts";
export { type StorePaths, storePaths } from "./src/store/paths.ts";
export { ConfigError, HooktapError, NotFoundError, StoreError } from "./src/errors.ts";
export { type Examination, examineRequest } from "./src/provider/examine.ts";
export { createView } from "./src/provider/view.ts";
export { ResignError, resignRequest } from "./src/provider/resign.ts";
export { secretHeaderNames } from "./src/provider/secret_headers.ts";
export type { ProviderSettings, RequestView, ResignRequest } from "./src/provider/types.ts";

if (import.meta.main) {
  // Run as a program (`deno run jsr:@hooktap/hooktap dev`): start the CLI.
  const { main } = await import("./main.ts");
  Deno.exit(await main(Deno.args));
}
