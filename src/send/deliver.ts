/**
 * One delivery attempt: sends a stored event to a URL and describes what
 * happened as a {@linkcode DeliveryRecord} (the app's answer, capped, or why
 * there was none). Never throws for a network problem: that is a result.
 * @module
 */
import { DELIVERY_VERSION, type DeliveryRecord, RECORD_BODY_BYTES } from "../event/delivery.ts";
import { type CapturedEvent, decodeBody, encodeBody, isoTime } from "../event/record.ts";
import { type RawResponse, SendError, sendFailure, type SendOptions, startSend } from "./client.ts";
import { type OutgoingRequest, withLength } from "./prepare.ts";
import { contentCoding, decodeAnswer } from "./answer_decode.ts";
import { deliveryUrl, isHopHeader, type SendTarget } from "./target.ts";

export { RECORD_BODY_BYTES };

/**
 * What to send instead of the stored request (a re-signed copy, overrides): see ./prepare.ts. With `encoded`
 * (the bytes ./client.ts `encodeFor` built ahead for the attempt's URL: the forwarder's events read back from
 * the store), those bytes are sent and `headers` and `body` are not read.
 */
export type PreparedRequest = Omit<OutgoingRequest, "resigned"> & {
  resigned?: string | boolean;
  encoded?: Uint8Array;
};

/** Options of {@linkcode deliverOnce}. */
export interface DeliverOptions extends SendOptions {
  /** Id of the record. */
  id: string;
  source: DeliveryRecord["source"];
  attempt: number;
  /** Sent again after a restart. */
  resumed?: boolean;
  /** The request to send; by default the stored one (minus hop-by-hop headers). */
  request?: PreparedRequest;
  /** Clock. @default () => new Date() */
  now?: () => Date;
}

/**
 * The request an event is delivered as, unchanged but for hop-by-hop headers
 * (the fast path of `prepareRequest` without overrides: the same rules).
 */
export function storedRequest(event: CapturedEvent): PreparedRequest {
  const bodyless = (event.method === "GET" || event.method === "HEAD") && event.bodySize > 0;
  const body = bodyless ? null : decodeBody(event);
  // Copied at its size and the hop-by-hop headers taken out in place: `filter` grows its result step by step
  // (and a destructuring `([name])` was an array iterator per header).
  const headers = event.headers.slice();
  let kept = 0;
  for (let i = 0; i < headers.length; i++) {
    const header = headers[i]!;
    if (!isHopHeader(header[0])) headers[kept++] = header;
  }
  headers.length = kept;
  return { method: event.method, headers: withLength(headers, body, event.method), body };
}

/** The attempt's outcome before retry policy: 2xx delivered, anything else failed (the caller may retry). */
function fill(record: DeliveryRecord, response: RawResponse): Promise<void> | undefined {
  record.status = response.status;
  record.statusText = response.statusText;
  record.headers = response.headers;
  record.bodySize = response.bodySize;
  record.outcome = response.status >= 200 && response.status < 300 ? "delivered" : "failed";
  // A compressed answer is kept decoded (its start), so every view shows what the app said; any other is
  // filled here, without a promise (the forwarding path's common case).
  if (contentCoding(response.headers) !== undefined) return fillDecoded(record, response);
  const bytes = response.body;
  const { body, bodyEncoding } = encodeBody(
    bytes.length > RECORD_BODY_BYTES ? bytes.subarray(0, RECORD_BODY_BYTES) : bytes,
  );
  record.body = body;
  record.bodyEncoding = bodyEncoding;
  if (response.bodySize > RECORD_BODY_BYTES) record.truncated = true;
  return undefined;
}

async function fillDecoded(record: DeliveryRecord, response: RawResponse): Promise<void> {
  const decoded = await decodeAnswer(response.headers, response.body, RECORD_BODY_BYTES);
  const { body, bodyEncoding } = encodeBody(decoded?.bytes ?? response.body.subarray(0, RECORD_BODY_BYTES));
  record.body = body;
  record.bodyEncoding = bodyEncoding;
  if (decoded !== undefined) {
    record.decodedFrom = decoded.from;
    if (decoded.partial || response.truncated) record.truncated = true;
  } else if (response.bodySize > RECORD_BODY_BYTES) record.truncated = true;
}

/** The raw answer of the last attempt, kept for relay mode (not stored whole). */
export interface AttemptOutcome {
  record: DeliveryRecord;
  response?: RawResponse;
  error?: SendError;
}

/** Sends `event` to `target` once: the engine's unit, one delivery of one event to one named target. */
export async function deliverOnce(
  event: CapturedEvent,
  target: SendTarget,
  options: DeliverOptions,
): Promise<AttemptOutcome> {
  const now = options.now ?? (() => new Date());
  const url = deliveryUrl(event, target.to);
  const request = options.request ?? storedRequest(event);
  const started = now();
  const t0 = performance.now();
  const record: DeliveryRecord = {
    v: DELIVERY_VERSION,
    id: options.id,
    event: event.id,
    endpoint: event.endpoint,
    source: options.source,
    target: target.name,
    url: url.href,
    method: request.method,
    attempt: options.attempt,
    startedAt: isoTime(started),
    durationMs: 0,
    outcome: "failed",
  };
  if (options.resumed) record.resumed = true;
  if (request.resigned) record.resigned = true;
  try {
    let response: RawResponse;
    try {
      response = await startSend(url, request, options); // sendRaw's work, without its async frame
    } catch (error) {
      throw sendFailure(error, url, options);
    }
    record.durationMs = Math.round((performance.now() - t0) * 10) / 10;
    const filling = fill(record, response);
    if (filling !== undefined) await filling;
    return { record, response };
  } catch (error) {
    record.durationMs = Math.round((performance.now() - t0) * 10) / 10;
    const failure = error instanceof SendError ? error : new SendError("other", String(error));
    record.error = failure.message;
    return { record, error: failure };
  }
}
