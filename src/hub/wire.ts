/**
 * What travels between the hub and its client: events as JSON with the
 * body in base64 (bytes stay bytes), and the client's answers.
 * @module
 */

/** One event in a poll's answer. */
export interface WireEvent {
  seq: number;
  receivedAt: string;
  method: string;
  path: string;
  query: string;
  headers: [string, string][];
  remoteAddr: string;
  /** The body bytes, base64. */
  body: string;
  /** A sender is waiting for the client's answer (post it to `/answers/<seq>`). */
  answer: boolean;
}

/** A poll's answer. */
export interface WirePoll {
  /** The channel's last sequence number. */
  head: number;
  events: WireEvent[];
  /** Set when events after the poll's cursor were dropped (retention): every event up to `low` is gone. */
  low?: number;
  /** When the last dropped event was received. */
  lowAt?: string | null;
  /** Requests the channel's storage cap refused (507). */
  refused?: { count: number; at: string };
  /**
   * A held poll (its 200 already sent) ended by a refusal: 401 (the token was rotated or revoked), 404 (the
   * channel was deleted), 503 (the hub's store failed). `events` is then empty; a client from before this
   * field polls again and gets the refusal as the status.
   */
  ended?: { status: number; message: string };
}

/** `GET /api/channels/<id>/clients`. */
export interface WireClients {
  clients: {
    name: string;
    acked: number;
    lastSeen: string;
    waiting: number;
    pinning: boolean;
  }[];
}

/** The client's answer to a waiting sender. */
export interface WireAnswer {
  status: number;
  headers: [string, string][];
  /** base64 */
  body: string;
}

/** A channel's state, for `doctor` and the banner. */
export interface WireStatus {
  head: number;
  acked: number;
  waiting: number;
  connected: boolean;
  lastReceivedAt: string | null;
  /** The client this status is for (issue 28). */
  client?: string;
  /** Whether that client is registered (it said hello or polled); a plain status read registers no one. */
  registered?: boolean;
  /** Every event up to `low` was dropped (acked by every client, or past retention). */
  low?: number;
  lowAt?: string | null;
  refused?: { count: number; at: string };
}

/** Largest body a client accepts from the hub (a hub's own limit is 10 MiB by default). */
export const MAX_WIRE_BODY = 64 * 1024 * 1024;
const METHOD = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,32}$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
// deno-lint-ignore no-control-regex
const CONTROL = /[\x00-\x1f\x7f]/;

/**
 * Checks a poll answer before anything of it is written (the client never
 * trusts what it receives): its envelope ({@linkcode wireBatchProblem}), then
 * each event ({@linkcode wireEventProblem}).
 * @returns `undefined` when it is fine, else what is wrong (the first problem).
 */
export function wirePollProblem(value: unknown, after = 0): string | undefined {
  const batch = wireBatchProblem(value, after);
  if (batch !== undefined) return batch;
  for (const e of (value as WirePoll).events) {
    const problem = wireEventProblem(e);
    if (problem !== undefined) return `event ${e.seq}: ${problem}`;
  }
  return undefined;
}

/**
 * Checks a poll answer's envelope, which the client refuses whole: its shape,
 * the head, the low mark, and each event an object whose id is a whole number
 * after `after` and after the one before it. The events' contents are
 * checked one by one ({@linkcode wireEventProblem}): a bad one is skipped, the
 * others taken.
 * @returns `undefined` when it is fine, else what is wrong.
 */
export function wireBatchProblem(value: unknown, after = 0): string | undefined {
  if (typeof value !== "object" || value === null) return "not an object";
  const v = value as Partial<WirePoll>;
  if (!Number.isSafeInteger(v.head) || !Array.isArray(v.events)) return "no head or events";
  if (v.low !== undefined && (!Number.isSafeInteger(v.low) || v.low < 0)) return "a bad low mark";
  let last = after;
  for (const e of v.events as unknown[]) {
    if (typeof e !== "object" || e === null) return "an event that is not an object";
    const w = e as Partial<WireEvent>;
    if (!Number.isSafeInteger(w.seq) || w.seq! <= last) return `event id ${String(w.seq)} out of order`;
    last = w.seq!;
  }
  return undefined;
}

/**
 * Checks one event of a poll (its envelope checked): methods and header names
 * as HTTP allows them, no control characters in the path, query or header
 * values, a body that is base64 and at most {@linkcode MAX_WIRE_BODY}, a time
 * that parses.
 * @returns `undefined` when it is fine, else what is wrong.
 */
export function wireEventProblem(e: Partial<WireEvent>): string | undefined {
  const request = wireRequestProblem(e);
  if (request !== undefined) return request;
  if (typeof e.body !== "string" || e.body.length > (MAX_WIRE_BODY / 3) * 4 + 4 || !BASE64.test(e.body)) {
    return "a bad or oversize body";
  }
  return undefined;
}

/**
 * Checks the request parts of an event (method, path, query, headers, time, address) as the client does. The
 * hub checks each request it receives with it before storing it: a request the client would refuse (a header
 * name over 256 characters, a method over 32) is refused at the hub, never stored to stop every client's
 * catch-up at it.
 * @returns `undefined` when it is fine, else what is wrong.
 */
export function wireRequestProblem(
  w: Partial<Pick<WireEvent, "method" | "path" | "query" | "headers" | "receivedAt" | "remoteAddr">>,
): string | undefined {
  if (typeof w.method !== "string" || !METHOD.test(w.method)) return `a bad method${methodDetail(w.method)}`;
  if (
    typeof w.path !== "string" || !w.path.startsWith("/") || CONTROL.test(w.path) || w.path.includes(" ")
  ) {
    return "a bad path";
  }
  if (typeof w.query !== "string" || CONTROL.test(w.query)) return "a bad query";
  if (!Array.isArray(w.headers)) return "bad headers (not a list)";
  for (const h of w.headers as unknown[]) {
    const problem = headerProblem(h);
    if (problem !== undefined) return `bad headers (${problem})`;
  }
  if (typeof w.receivedAt !== "string" || Number.isNaN(Date.parse(w.receivedAt))) return "a bad time";
  if (typeof w.remoteAddr !== "string" || w.remoteAddr.length > 64) return "a bad address";
  return undefined;
}

/** What is wrong with a method {@linkcode METHOD} refuses, in parentheses. */
function methodDetail(method: unknown): string {
  if (typeof method !== "string") return " (not a string)";
  if (method.length === 0 || method.length > 32) return ` (${method.length} characters; 1 to 32 are allowed)`;
  return " (characters HTTP does not allow in a method)";
}

/** What is wrong with one `[name, value]` header pair, if anything. */
function headerProblem(h: unknown): string | undefined {
  if (!Array.isArray(h) || h.length !== 2 || typeof h[0] !== "string" || typeof h[1] !== "string") {
    return "not a [name, value] pair of strings";
  }
  const [name, value] = h as [string, string];
  if (name.length === 0 || name.length > 256) {
    return `a header name of ${name.length} characters; 1 to 256 are allowed`;
  }
  if (!HEADER_NAME.test(name)) return "a header name with characters HTTP does not allow";
  if (/[\0\r\n]/.test(value)) return "a header value with a CR, LF or NUL";
  return undefined;
}

/** Largest status a client's answer may give a sender (1xx are not final answers). */
const ANSWER_STATUS = { min: 200, max: 599 } as const;

/**
 * Checks a client's answer to a held sender before the hub builds the sender's response from it: a final
 * status, headers as `[name, value]` pairs HTTP allows, a base64 body of at most `maxBody` bytes.
 * @returns `undefined` when it is fine, else what is wrong.
 */
export function wireAnswerProblem(value: unknown, maxBody: number): string | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "not a JSON object";
  const a = value as Partial<WireAnswer>;
  if (!Number.isInteger(a.status) || a.status! < ANSWER_STATUS.min || a.status! > ANSWER_STATUS.max) {
    return "status must be a whole number from 200 to 599";
  }
  if (
    !Array.isArray(a.headers) ||
    !a.headers.every((h: unknown) =>
      Array.isArray(h) && h.length === 2 && typeof h[0] === "string" && HEADER_NAME.test(h[0]) &&
      typeof h[1] === "string" && !/[\0\r\n]/.test(h[1])
    )
  ) return "headers must be [name, value] pairs of strings HTTP allows";
  if (typeof a.body !== "string" || !BASE64.test(a.body) || a.body.length % 4 !== 0) {
    return "body must be base64";
  }
  if ((a.body.length / 4) * 3 > maxBody + 2) return `body is larger than ${maxBody} bytes`;
  return undefined;
}

/** Checks a poll answer's shape (see {@linkcode wirePollProblem}). */
export function isWirePoll(value: unknown): value is WirePoll {
  return wirePollProblem(value) === undefined;
}
