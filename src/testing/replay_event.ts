/**
 * `replayEvent`: sends one recorded event to the app under test through the
 * send engine (byte-exact: the replay command's URL and header rules, the
 * same HTTP/1.1 client), optionally re-signed with
 * the test's secret at the current time, and returns the app's whole answer.
 * @module
 */
import { UsageError } from "../errors.ts";
import type { CapturedEvent } from "../event/record.ts";
import { deliverOnce } from "../send/deliver.ts";
import { keepPlaces } from "../send/overrides.ts";
import { invalidResignMessage, prepareRequest } from "../send/prepare.ts";
import { noAnswer } from "../send/resend.ts";
import { targetNameOf } from "../send/target.ts";
import { replayUrl } from "../send/to_url.ts";
import { resignHeaders } from "./_resign.ts";
import type { ReceivedEvent } from "./event.ts";

/** Options of {@linkcode replayEvent}. */
export interface ReplayEventOptions {
  /** The app's URL; the event's query string is added when this has none. */
  to: string;
  /**
   * Re-sign with this secret and the current time (timestamped schemes such
   * as Stripe's reject old signatures; fixtures hold masked ones).
   * An event whose signature was `invalid` when it was received is refused (re-signing would make the
   * app accept what its sender did not sign right) unless `allowInvalid` is `true`.
   * @default not re-signed: the stored signature headers are sent as they are
   */
  resign?: { secret: string; provider?: string; allowInvalid?: boolean };
  /** `[name, value]` headers that add to or replace the stored ones; an empty value removes. @default [] */
  headers?: readonly [string, string][];
  /**
   * Longest wait for the whole answer, in milliseconds.
   * @default 10000
   */
  timeoutMs?: number;
  /** Clock for re-signing. @default () => new Date() */
  now?: () => Date;
}

/** The app's answer, read whole. */
export interface ReplayResponse {
  /** HTTP status. */
  status: number;
  /** HTTP status text. */
  statusText: string;
  /** Whether the status is 2xx. */
  ok: boolean;
  /** The response headers. */
  headers: Headers;
  /** The body bytes. */
  body: Uint8Array;
  /** The body decoded as UTF-8. */
  text(): string;
  /** The body parsed as JSON. */
  json<T = unknown>(): T;
}

function libraryWording(error: unknown): never {
  if (error instanceof UsageError) {
    throw new UsageError(error.message.replace(/--to\b/g, "replayEvent's `to`"));
  }
  throw error;
}

/**
 * Sends `event` to `options.to` as the sender did (same method, exact body
 * bytes, stored headers minus connection ones; redirects not followed) and
 * returns the answer.
 * @throws {NetworkError} when the app cannot be reached or does not answer in time.
 * @throws {Error} when `resign` is asked and the event's scheme cannot be re-signed, or its signature was
 * invalid at receipt (without `resign.allowInvalid`).
 * @throws {TypeError} when `event` is missing (an empty fixture) or `resign.secret` is empty.
 *
 * @example Replay a recorded fixture into your app
 * ```ts
 * import { loadEvents, replayEvent } from "@hooktap/hooktap/testing";
 * const [event] = await loadEvents("tests/fixtures/stripe_invoice_paid.jsonl");
 * if (event) {
 *   const response = await replayEvent(event, {
 *     to: "http://127.0.0.1:3000/webhooks/stripe",
 *     resign: { secret: "whsec_test" },
 *   });
 *   console.log(response.status, response.text());
 * }
 * ```
 */
export async function replayEvent(
  event: ReceivedEvent | CapturedEvent,
  options: ReplayEventOptions,
): Promise<ReplayResponse> {
  if (typeof event !== "object" || event === null) {
    throw new TypeError(
      `replayEvent: no event to send (got ${String(event)}). Is the fixture empty? ` +
        "loadEvents returns [] for an empty file, and `hooktap export --format fixture` writes one when no " +
        "event matches its filters: record the event again.",
    );
  }
  const record = "record" in event ? event.record : event as CapturedEvent;
  if (
    options.resign !== undefined &&
    (typeof options.resign.secret !== "string" || options.resign.secret === "")
  ) {
    throw new TypeError(
      `replayEvent: resign.secret is ${
        options.resign.secret === "" ? "empty" : String(options.resign.secret)
      } (an unset environment variable?): pass the secret your app verifies with, or leave out \`resign\`.`,
    );
  }
  const now = options.now ?? (() => new Date());
  let url: URL;
  try {
    url = replayUrl(record, options.to);
  } catch (error) {
    libraryWording(error);
  }
  const target = { name: targetNameOf(options.to), to: options.to, timeoutMs: options.timeoutMs ?? 10_000 };
  const request = await prepareRequest(record, url, { overrides: { headers: options.headers ?? [] } });
  if (options.resign !== undefined) {
    if (record.verdict?.status === "invalid" && options.resign.allowInvalid !== true) {
      throw new Error(
        "replayEvent: " + invalidResignMessage(record, "`resign: { secret, allowInvalid: true }`"),
      );
    }
    const signed = await resignHeaders(
      {
        method: request.method,
        url: url.href,
        headers: request.headers,
        body: request.body ?? new Uint8Array(),
      },
      options.resign,
      now(),
    );
    request.headers = keepPlaces(request.headers, signed);
  }
  const outcome = await deliverOnce(record, target, {
    id: "dlv_library",
    source: "replay",
    attempt: 1,
    request,
    timeoutMs: target.timeoutMs,
    maxBody: 64 * 1024 * 1024,
    keepAlive: false, // nothing left open for a test's resource check
  });
  const response = outcome.response;
  if (response === undefined) {
    const failure = noAnswer({
      event: record,
      target,
      record: outcome.record,
      ...(outcome.error ? { error: outcome.error } : {}),
    });
    failure.message = failure.message.replace("(--timeout to wait longer)", "(raise timeoutMs)");
    throw failure;
  }
  const bytes = response.body;
  const headers = new Headers();
  for (const [name, value] of response.headers) {
    try {
      headers.append(name, value);
    } catch { /* a header the Headers class refuses */ }
  }
  return {
    status: response.status,
    statusText: response.statusText,
    ok: response.status >= 200 && response.status < 300,
    headers,
    body: bytes,
    text: () => new TextDecoder().decode(bytes),
    json<T = unknown>(): T {
      return JSON.parse(new TextDecoder().decode(bytes)) as T;
    },
  };
}
