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
export { type Receiver, type ReceiverOptions, startReceiver } from "./src/testing/receiver.ts";
export { type ReceivedEvent, toReceivedEvent } from "./src/testing/event.ts";
export {
  DEFAULT_WAIT_TIMEOUT_MS,
  type EventFilter,
  type EventMatch,
  type WaitForOptions,
} from "./src/testing/wait_for.ts";
export { loadEvents, writeFixture } from "./src/testing/fixtures.ts";
export { replayEvent, type ReplayEventOptions, type ReplayResponse } from "./src/testing/replay_event.ts";
export {
  MASKED_SIGNATURE,
  maskSignatures,
  SIGNATURE_HEADER_NAMES,
  toFixtureLines,
} from "./src/export/fixture.ts";
export type { StoredResponse, Verdict, VerdictStatus } from "./src/event/record.ts";
export {
  ConfigError,
  HooktapError,
  NetworkError,
  NotFoundError,
  ServeError,
  StoreError,
  UsageError,
} from "./src/errors.ts";
export type { DeliveryRecord } from "./src/event/delivery.ts";
export { forwardEvent, type ForwardEventOptions } from "./src/send/forward_event.ts";
export { parseDeliveryLine } from "./src/send/deliveries_read.ts";
export type { ForwardConfig } from "./src/config/forward.ts";
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
