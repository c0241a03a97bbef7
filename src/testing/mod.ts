/**
 * hooktap's test library: a real receiver your test starts
 * ({@linkcode startReceiver}, then `waitFor`), fixtures recorded from real
 * traffic ({@linkcode loadEvents}, {@linkcode writeFixture}) and replayed
 * byte-exact with a fresh signature ({@linkcode replayEvent}), and the
 * pieces they are built on (the request handler, config validation, the
 * store writer, signature checks and re-signing).
 *
 * @example Wait for the webhook your app sends
 * ```ts
 * import { startReceiver } from "@hooktap/hooktap/testing";
 *
 * await using rx = await startReceiver();
 * await fetch(`${rx.url}/hook`, { method: "POST", body: "{}" });
 * const event = await rx.waitFor({ path: "/hook" });
 * console.log(event.json()); // {}
 * ```
 *
 * @module
 */
export { type Receiver, type ReceiverOptions, startReceiver } from "./receiver.ts";
export { type ReceivedEvent, toReceivedEvent } from "./event.ts";
export {
  DEFAULT_WAIT_TIMEOUT_MS,
  type EventFilter,
  type EventMatch,
  type WaitForOptions,
} from "./wait_for.ts";
export { loadEvents, writeFixture } from "./fixtures.ts";
export { replayEvent, type ReplayEventOptions, type ReplayResponse } from "./replay_event.ts";
export {
  MASKED_SIGNATURE,
  maskSignatures,
  SIGNATURE_HEADER_NAMES,
  toFixtureLines,
} from "../export/fixture.ts";
export { validateConfig } from "../config/validate.ts";
export { loadConfig, type LoadConfigOptions } from "../config/load.ts";
export type { CapturedEvent, StoredResponse, Verdict, VerdictStatus } from "../event/record.ts";
export { decodeBody, parseEventLine } from "../event/record.ts";
export {
  createHandler,
  type EventSink,
  type Handler,
  type HandlerOptions,
  METHOD_NOT_ALLOWED_MESSAGE,
  NOT_FOUND_MESSAGE,
  type RequestOutcome,
} from "../receiver/handler.ts";
export { type EventWriter, type EventWriterOptions, openEventWriter } from "../store/write/writer.ts";
export { type StorePaths, storePaths } from "../store/paths.ts";
export type { DeliveryRecord } from "../event/delivery.ts";
export { forwardEvent, type ForwardEventOptions } from "../send/forward_event.ts";
export { parseDeliveryLine } from "../send/deliveries_read.ts";
export { type Examination, examineRequest } from "../providers/examine.ts";
export { createView } from "../providers/view.ts";
export { ResignError, resignRequest } from "../providers/resign.ts";
export { secretHeaderNames } from "../providers/secret_headers.ts";
export type {
  ChallengeAnswer,
  GenericHmacSettings,
  ProviderSettings,
  RequestView,
  ResignRequest,
} from "../providers/types.ts";
export type { IncomingRequest, RequestInfo } from "../receiver/request.ts";
export type { Forwarding, ForwardTarget, SendTarget } from "../ports.ts";
export type { BodyBudget } from "../receiver/budget.ts";
export type { StallWatch, Watched } from "../receiver/stall.ts";
export type { IdFactory } from "../event/id.ts";
export type { Match, Matcher, Router } from "../route/router.ts";
export type { ViewParts } from "../providers/view.ts";
export type { Faults } from "../trigger/run.ts";
export type { TriggerKey, TriggerKeys } from "../trigger/keys.ts";
export {
  ConfigError,
  HooktapError,
  NetworkError,
  NotFoundError,
  ServeError,
  StoreError,
  UsageError,
} from "../errors.ts";
export { trigger, type TriggeredDelivery, type TriggerOptions, type TriggerResult } from "./trigger.ts";
