/**
 * The one answer to a body that could not be read (too large, stalled,
 * over the bound of bytes in flight, cut off by shutdown, hidden by the
 * server, or broken off), for dev's receiver and the hub alike: one wording,
 * where the context names who answers and which setting to change.
 * @module
 */
import { BodyCutOffError, BodyTooLargeError, BodyUnreadableError } from "./body.ts";
import { BodyBudgetError } from "./budget.ts";
import { closeAfter } from "./closing.ts";
import { BodyStalledError, BodyTrailerError } from "./stall.ts";

/** Who answers, and what to change: dev's config fields or the hub's flags. */
export interface BodyErrorContext {
  /** Who answers, as the subject of a sentence: `"hooktap"`, `"the hub"`. */
  server: string;
  /** What takes the body: `"this endpoint"`, `"this hub"`. */
  taker: string;
  /** The largest body taken, in bytes. */
  maxBodySize: number;
  /** The setting that raises it: `"maxBodySize in hooktap.config.ts"`, `"hub serve --max-body-size"`. */
  maxBodySetting: string;
  /** The bound of bytes in flight that refused `error`, named with its setting. */
  inFlight(error: BodyBudgetError): string;
  /** The request's method (a hidden GET or HEAD body is named). */
  method: string;
  /** How to read a body this server hides (dev: another HTTP stack), if there is a way. */
  unreadableFix?: string;
}

/** The answer to a body error, and its reason for an activity log. */
export interface BodyErrorAnswer {
  status: number;
  /** Why, in a few words (`no body data was read for 30 s`). */
  reason: string;
  response: Response;
  /** Shutdown cut the body off (the request is not a failure of the sender's). */
  cutOff?: true;
}

/** `1 MiB`, `4 KiB` or `1000 bytes`. */
export function sizeLimit(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

function text(status: number, body: string, headers: Record<string, string> = {}): Response {
  return new Response(body, { status, headers: { "content-type": "text/plain; charset=utf-8", ...headers } });
}

/** `the hub` starts a sentence as `The hub`; a name (`hooktap`, always lower case) stays as it is. */
function capital(s: string): string {
  return s.startsWith("the ") ? "T" + s.slice(1) : s;
}

/**
 * Deno.serve's error for a body its HTTP/1 parser (hyper) refused mid-body: `invalid HTTP/1 request: Invalid`,
 * the same for a chunk size that is not hex and for chunk extensions over the parser's limit (Deno 2.9).
 */
function isFramingError(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith("invalid HTTP/1 request");
}

/** The answer to `error`, thrown while reading a request's body. */
export function bodyErrorAnswer(error: unknown, context: BodyErrorContext): BodyErrorAnswer {
  const close = { connection: "close" };
  // The answers given before the body was read to its end are marked for the listener to close their
  // connection (src/receiver/closing.ts): the sender may still be sending.
  if (error instanceof BodyBudgetError) {
    const what = error.kind === "bytes"
      ? "too many bodies arriving at once"
      : "too many requests waiting for their body";
    const reason = `${what} (${context.inFlight(error)})`;
    const message = `${capital(context.server)} is busy: ${reason}. Nothing was stored; retry in a moment.`;
    return {
      status: 503,
      reason,
      response: closeAfter(text(503, message, { "retry-after": "2", ...close })),
    };
  }
  if (error instanceof BodyTrailerError) {
    const reason = "bytes after the chunked body's last chunk (trailer fields) passed the bound";
    return {
      status: 431,
      reason,
      response: text(431, `Request header fields too large: ${reason}. Nothing was stored.`, close),
    };
  }
  if (error instanceof BodyStalledError) {
    // What is known: no read of the body gave data. Bytes may still have come that were not body data.
    const reason = `no body data was read for ${error.ms / 1000} s`;
    return {
      status: 408,
      reason,
      response: text(408, `Request timeout: ${reason}. Nothing was stored.`, close),
    };
  }
  if (error instanceof BodyCutOffError) {
    const reason = `${context.server} stopped while the body was still arriving`;
    const message = `${
      capital(context.server)
    } is shutting down: ${reason}. Nothing was stored; retry in a moment.`;
    return {
      status: 503,
      reason,
      response: text(503, message, { "retry-after": "5", ...close }),
      cutOff: true,
    };
  }
  if (error instanceof BodyUnreadableError) {
    const reason = `this server cannot read the body of a ${context.method} request`;
    const message = `Not implemented: ${reason} (this Deno's Deno.serve hides GET and HEAD bodies). ` +
      `Nothing was stored.${context.unreadableFix === undefined ? "" : ` ${context.unreadableFix}`}`;
    return { status: 501, reason, response: closeAfter(text(501, message, close)) };
  }
  if (error instanceof BodyTooLargeError) {
    const size = sizeLimit(context.maxBodySize);
    const reason = `body larger than ${context.maxBodySetting} (${size})`;
    const message = `Request body too large: ${context.taker} accepts at most ${size}. ` +
      `Raise ${context.maxBodySetting} to accept more. Nothing was stored.`;
    // The rest read and dropped, or left to a sender that waits for a go-ahead: a complete answer (the
    // sender closes). Given up: the listener closes the connection after the answer, which then lacks its
    // last chunk (./over_limit.ts).
    const answer = text(413, message, close);
    const response = error.rest === "given up" ? closeAfter(answer) : answer;
    return { status: 413, reason, response };
  }
  if (isFramingError(error)) {
    const reason =
      "the HTTP parser refused the body's framing (a chunk size line that is not hex, or a chunk " +
      "extension longer than about 4 KiB, for example)";
    return { status: 400, reason, response: text(400, `Bad request: ${reason}. Nothing was stored.`, close) };
  }
  const reason = "the request body could not be read (client disconnected?)";
  return { status: 400, reason, response: text(400, `Bad request: ${reason}. Nothing was stored.`) };
}

/** The response to `error`, thrown while reading a request's body. */
export function bodyErrorResponse(error: unknown, context: BodyErrorContext): Response {
  return bodyErrorAnswer(error, context).response;
}
