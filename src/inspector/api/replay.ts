/**
 * `POST /api/events/:id/replay`: sends a stored event (or an edited copy of
 * it) to a URL through the send engine, as `hooktap replay` does (recorded
 * in the deliveries log), and reports the answer. Re-signing is done by a function the caller provides (the
 * providers' re-signer); without one, `resign: true` is refused.
 * @module
 */
import { type CapturedEvent, encodeBody } from "../../event/record.ts";
import { checkMethod, HEADER_VALUE_RULE, headerValueProblem, isHeaderName } from "../../send/overrides.ts";
import { invalidResignMessage } from "../../send/prepare.ts";
import { noAnswer, openReplayLog, type ReplayResult, replayResult, sendOne } from "../../send/resend.ts";
import { targetNameOf } from "../../send/target.ts";
import { didYouMean } from "../../text/suggest.ts";
import { replayUrl } from "../../send/to_url.ts";
import { formatBytes } from "../../text/format.ts";
import type { StorePaths } from "../../store/paths.ts";

/**
 * Makes fresh signature headers for a body: the providers' re-signer. It refuses an event stored with an
 * `invalid` verdict unless `options.invalid` is set.
 */
export type Resigner = (
  event: CapturedEvent,
  target?: URL,
  options?: { invalid?: boolean },
) => Promise<CapturedEvent> | CapturedEvent;

/** The API's own words for the CLI options a message names. */
export function apiWording(text: string): string {
  return text
    .replace(/--resign-invalid/g, '"resignInvalid": true')
    .replace(/send it with --resign/g, 'replay it with "resign": true (the Re-sign box)')
    .replace(/--resign/g, '"resign": true')
    .replace(/--to/g, "to")
    .replace(/-X\/--method|--method/g, "method");
}

/** The JSON body of a replay request. */
export interface ReplayRequest {
  /** Where to send it: any http(s) URL. */
  to: string;
  /** Method instead of the stored one. */
  method?: string;
  /** The whole header list to send instead of the stored one (hop-by-hop, host, content-length are dropped). */
  headers?: [string, string][];
  /** A new body instead of the stored bytes. */
  body?: string;
  /** How `body` encodes the bytes. @default "utf8" */
  bodyEncoding?: "utf8" | "base64";
  /** Make the signature anew for the (edited) body; needs a re-signer. */
  resign?: boolean;
  /**
   * With `resign`: sign afresh even an event whose signature was `invalid` at receipt (refused
   * without it: it would make a badly signed request pass).
   */
  resignInvalid?: boolean;
}

/** The request's body is not a replay request. */
export class ReplayRequestError extends Error {
  override name = "ReplayRequestError";
}

/** The keys of a replay request. */
const KEYS = ["to", "method", "headers", "body", "bodyEncoding", "resign", "resignInvalid"] as const;

/** Standard base64 (RFC 4648 §4) as `base64` writes it: the alphabet, `=` padding, line breaks between lines. */
const BASE64_TEXT = /^[A-Za-z0-9+/=\r\n]*$/;
/**
 * The bytes of `text` when it is strict base64: padded to a multiple of 4 characters, with no bits dropped
 * (`YR==`, whose last bits are not zero, is refused, as are `YWJ` and `YQ`), line breaks allowed (no spaces or
 * tabs); `undefined` otherwise.
 */
function _strictBase64(text: string): Uint8Array | undefined {
  if (!BASE64_TEXT.test(text)) return undefined;
  try {
    return Uint8Array.fromBase64(text, { lastChunkHandling: "strict" });
  } catch {
    return undefined;
  }
}

/** The refusal of a `body` that is not strict base64. */
const NOT_BASE64 = 'body is not base64 (bodyEncoding is "base64"): give the bytes in standard base64 (A-Z, ' +
  "a-z, 0-9, + and /, padded with = to a multiple of 4 characters; line breaks allowed, no spaces), " +
  'or send text with "bodyEncoding": "utf8"';

/** @throws {ReplayRequestError} naming the first header whose name or value cannot be sent. */
function _checkHeaders(headers: [string, string][]): void {
  for (const [name, value] of headers) {
    if (!isHeaderName(name)) {
      throw new ReplayRequestError(
        `headers: ${JSON.stringify(name)} is not a header name (letters, digits and !#$%&'*+.^_\`|~-, ` +
          "no spaces or colons)",
      );
    }
    const problem = headerValueProblem(value);
    if (problem !== undefined) {
      throw new ReplayRequestError(`headers: the value of ${name} has ${problem}; ${HEADER_VALUE_RULE}`);
    }
  }
}

/** @throws {ReplayRequestError} naming the keys the request does not take. */
function _checkKeys(v: Record<string, unknown>): void {
  const unknown = Object.keys(v).filter((k) => !(KEYS as readonly string[]).includes(k));
  if (unknown.length === 0) return;
  const named = unknown.map((k) => `${JSON.stringify(k)}${didYouMean(k, KEYS, (n) => JSON.stringify(n))}`);
  // A suggestion ends in "?": the next sentence follows it without another stop.
  throw new ReplayRequestError(
    `unknown key${unknown.length === 1 ? "" : "s"} ${named.join(", ")}${
      named.at(-1)!.endsWith("?") ? "" : "."
    } ` +
      `A replay request takes ${KEYS.join(", ")}`,
  );
}

function _isPairs(value: unknown): value is [string, string][] {
  return Array.isArray(value) &&
    value.every((p) =>
      Array.isArray(p) && p.length === 2 && typeof p[0] === "string" && typeof p[1] === "string"
    );
}

/**
 * Checks a replay request's JSON.
 * @throws {ReplayRequestError} naming the bad field.
 */
export function parseReplayRequest(value: unknown): ReplayRequest {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ReplayRequestError(
      'the request body must be a JSON object like {"to":"http://localhost:3000/webhook"}',
    );
  }
  const v = value as Record<string, unknown>;
  _checkKeys(v);
  if (typeof v.to !== "string" || v.to === "") throw new ReplayRequestError("to must be a URL string");
  const r: ReplayRequest = { to: v.to };
  if (v.method !== undefined) {
    if (typeof v.method !== "string") throw new ReplayRequestError("method must be a string");
    r.method = v.method;
  }
  if (v.headers !== undefined) {
    if (!_isPairs(v.headers)) {
      throw new ReplayRequestError("headers must be a list of [name, value] string pairs");
    }
    _checkHeaders(v.headers);
    r.headers = v.headers;
  }
  if (v.body !== undefined) {
    if (typeof v.body !== "string") throw new ReplayRequestError("body must be a string");
    r.body = v.body;
  }
  if (v.bodyEncoding !== undefined) {
    if (v.bodyEncoding !== "utf8" && v.bodyEncoding !== "base64") {
      throw new ReplayRequestError('bodyEncoding must be "utf8" or "base64"');
    }
    r.bodyEncoding = v.bodyEncoding;
  }
  if (r.bodyEncoding === "base64" && r.body !== undefined && _strictBase64(r.body) === undefined) {
    throw new ReplayRequestError(NOT_BASE64);
  }
  if (v.resign !== undefined) {
    if (typeof v.resign !== "boolean") throw new ReplayRequestError("resign must be true or false");
    r.resign = v.resign;
  }
  if (v.resignInvalid !== undefined) {
    if (typeof v.resignInvalid !== "boolean") {
      throw new ReplayRequestError("resignInvalid must be true or false");
    }
    r.resignInvalid = v.resignInvalid;
  }
  return r;
}

/** What the replay endpoint answers. */
export interface ReplayAnswer extends Omit<ReplayResult, "resigned"> {
  resigned: boolean;
}

/**
 * Sends the edited event through the send engine (the same client, header
 * rules and delivery record as every other send) and records it.
 * @throws {ReplayRequestError} for `resign` without a re-signer or a bad body.
 * @throws {UsageError} for a bad URL or method; {NetworkError} when the target gives no answer.
 */
export async function replayFromApi(
  event: CapturedEvent,
  request: ReplayRequest,
  options: { resign?: Resigner; paths?: StorePaths } = {},
): Promise<ReplayAnswer> {
  let edited: CapturedEvent = { ...event };
  if (request.headers !== undefined) edited.headers = request.headers;
  if (request.body !== undefined) {
    // Strict base64 (never a bit dropped), as parseReplayRequest checked it.
    const bytes = request.bodyEncoding === "base64"
      ? _strictBase64(request.body)
      : new TextEncoder().encode(request.body);
    if (bytes === undefined) throw new ReplayRequestError(NOT_BASE64);
    edited = { ...edited, ...encodeBody(bytes), bodySize: bytes.length };
  }
  if (request.method !== undefined) checkMethod(request.method);
  const url = replayUrl(edited, request.to);
  if (request.resign === true) {
    if (event.verdict?.status === "invalid" && request.resignInvalid !== true) {
      throw new ReplayRequestError(apiWording(invalidResignMessage(event)));
    }
    if (options.resign === undefined) {
      throw new ReplayRequestError(
        "re-signing is not available in this hooktap (no provider re-signer is installed); " +
          "send without resign, or edit the signature header yourself",
      );
    }
    try {
      edited = await options.resign(edited, url, { invalid: request.resignInvalid === true });
    } catch (error) {
      throw new ReplayRequestError(apiWording(error instanceof Error ? error.message : String(error)));
    }
  }
  const log = options.paths === undefined
    ? undefined
    : await openReplayLog(options.paths, [event], { background: true }).catch(() => undefined);
  let sent;
  try {
    sent = await sendOne(edited, {
      targetOf: () => ({ name: targetNameOf(request.to), to: request.to, timeoutMs: 15_000 }),
      overrides: request.method !== undefined ? { method: request.method } : {},
      ...(log !== undefined ? { log } : {}),
    });
  } finally {
    await log?.close();
  }
  if (sent.problem) throw sent.problem;
  if (sent.response === undefined) throw noAnswer(sent);
  const { resigned: _, ...result } = replayResult(sent);
  const answer: ReplayAnswer = { ...result, resigned: request.resign === true };
  if (request.resign === true) delete answer.warning;
  else if (answer.warning !== undefined) answer.warning = apiWording(answer.warning);
  if (sent.request?.body === null && edited.bodySize > 0) {
    // Told, as `hooktap replay -X GET` tells it: the app's signature check fails without the body.
    const dropped = `${answer.method} requests carry no body; the stored ${
      formatBytes(edited.bodySize)
    } body was not sent.`;
    answer.warning = answer.warning === undefined ? dropped : `${answer.warning} ${dropped}`;
  }
  return answer;
}
