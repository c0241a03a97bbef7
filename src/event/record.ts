/**
 * The captured event: the record format of `.hooktap/events.jsonl` (v1),
 * and how a request's parts become one. Pure: no I/O.
 * @module
 */
import { targetNameOf } from "./delivery.ts";
import { formTypeFix } from "./form_type.ts";

/**
 * Version of the record format written in each line's `v` field: 1, or 2
 * for a record that has one of v2's optional fields (`merged`, `trigger`, `hub`). v2 is v1 plus
 * optional fields; readers take both.
 */
export const RECORD_VERSION = 1;
/** The version written when a v2 field is present. */
export const RECORD_VERSION_2 = 2;

/** One captured request, one line of `.hooktap/events.jsonl`. */
export interface CapturedEvent {
  /** Format version: `1`, or `2` when a v2 field (`merged`, `trigger`, `hub`) is present (v2 = v1 + optional fields). */
  v: 1 | 2;
  /** `evt_<YYYYMMDD>_<ULID>`; sorts in arrival order. */
  id: string;
  /** Name of the endpoint the request matched. */
  endpoint: string;
  /** Arrival time, ISO 8601 UTC with milliseconds. */
  receivedAt: string;
  /** HTTP method, as received (upper case). */
  method: string;
  /** URL path, dot segments resolved, percent-encoding kept. */
  path: string;
  /** Raw query string without `?`; `""` when there is none. */
  query: string;
  /** Headers as `[name, value]` pairs in arrival order, repeats kept. */
  headers: [string, string][];
  /** The exact body bytes: as text when they are valid UTF-8, else base64. */
  body: string;
  /** How `body` encodes the bytes. */
  bodyEncoding: "utf8" | "base64";
  /** Size of the body in bytes. */
  bodySize: number;
  /** Address of the peer that sent the request (the tunnel's, when tunnelled). */
  remoteAddr: string;
  // Optional fields below are written after the ones above, only when they apply.
  /** Parameters of a pattern path (`/hooks/:provider` matched `/hooks/github`: `{ provider: "github" }`). */
  params?: Record<string, string>;
  /** The sender, configured or detected: `github`, `stripe`, `standard-webhooks`, ... */
  provider?: string;
  /** The provider's event type: `push`, `invoice.paid`, `orders/create`. */
  type?: string;
  /** The signature verdict at receipt. */
  verdict?: Verdict;
  /** What hooktap answered the sender when it was not the plain 200 (challenge, custom, 401). */
  response?: StoredResponse;
  /** Forwarding was on when it arrived: where it is to be delivered (see `.hooktap/deliveries.jsonl`). */
  forward?: ForwardMark;
  /**
   * v2: lower-cased names of headers the HTTP stack may have changed before
   * hooktap saw them (Deno.serve joins every `Cookie` line into one lower-case
   * `cookie` at the end of the list): their case, order and repeats in
   * `headers` may differ from what was sent. Absent: stored exactly as sent.
   */
  merged?: string[];
  /** Sent by `hooktap trigger` (told over dev's control socket; the request itself carries no marker). v2. */
  trigger?: TriggerMark;
  /** v2: it came through a hub (`hooktap dev --hub`): the channel, the hub's sequence number and arrival time. */
  hub?: HubMark;
}

/** What `hooktap trigger` said about a delivery it sent. */
export interface TriggerMark {
  /** The catalog event. */
  event: string;
  /** The fault it was, on purpose: `duplicate`, `stale`, `bad-signature`, `retry`, `out-of-order`. */
  fault?: string;
  /** 0 the first attempt, then retries. */
  attempt: number;
}

/** Where a hub event came from (record v2). */
export interface HubMark {
  /** The channel id. */
  channel: string;
  /** The hub's event id: its sequence number in the channel, in commit order. */
  seq: number;
  /** When the hub received it, ISO 8601 UTC. */
  receivedAt: string;
}

/** Outcome of checking a request's signature. */
export type VerdictStatus = "valid" | "invalid" | "expired" | "unsigned" | "no-secret";

/** A signature verdict and why. */
export interface Verdict {
  /** The outcome. */
  status: VerdictStatus;
  /** The scheme checked: `github-sha256`, `stripe-v1`, ... */
  scheme?: string;
  /** Why, in one sentence, for `invalid` and `expired` (and which secret matched, for `valid`). */
  reason?: string;
}

/**
 * Whether an event's signature may be signed afresh on its way to the app: only one found valid at receipt (or
 * an event stored before verdicts). One invalid, expired, unsigned or unchecked never is: that would hand the
 * app a signature no sender made (src/send/resign_stale.ts, and every "gave up" command's `--resign`).
 */
export function validAtReceipt(event: { readonly verdict?: Pick<Verdict, "status"> | undefined }): boolean {
  return event.verdict === undefined || event.verdict.status === "valid";
}

/** What hooktap answered, when it was not its plain `200 {"ok":true,...}`. */
export interface StoredResponse {
  /** HTTP status answered. */
  status: number;
  /** Why this answer: a provider's URL challenge, the endpoint's `response`, or `enforce` refusing a bad signature. */
  source: "challenge" | "custom" | "enforce";
  /** Headers answered, in order. */
  headers?: [string, string][];
  /** Body answered. */
  body?: string;
  /** Delay before answering, in milliseconds. */
  delayMs?: number;
}

/** Where an event is to be forwarded. */
export interface ForwardMark {
  /** URL of its (first) target as configured; kept for v1 readers. */
  to: string;
  /** `queue` or `relay`, as configured. */
  mode: "queue" | "relay";
  /**
   * v2: the names of the targets its endpoint's rules chose, in config order;
   * `[]` when no rule matched ("not forwarded (no rule matched)"). Written
   * only when the endpoint has several targets or rules; absent (v1): the
   * one target named after `to` ({@linkcode markedTargets}).
   */
  targets?: string[];
}

/** The names of the targets an event was to be forwarded to (v1 marks: the one named after `to`). */
export function markedTargets(mark: ForwardMark): readonly string[] {
  return mark.targets ?? [targetNameOf(mark.to)];
}

/** What a request contributes to its record. */
export interface RequestParts {
  id: string;
  endpoint: string;
  receivedAt: Date;
  method: string;
  path: string;
  query: string;
  headers: [string, string][];
  body: Uint8Array;
  remoteAddr: string;
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
/**
 * The same decoding without `fatal`: each invalid sequence becomes U+FFFD. Measured on Deno 2.9, it decodes a
 * 1.6 KB body in ~0.2 µs where the fatal decoder takes ~1.1 (BENCHMARKS.md, "Issue 36, eighth round").
 */
const utf8Lenient = new TextDecoder("utf-8", { ignoreBOM: true });
const utf8Encoder = new TextEncoder();

/** Short bodies (an app's `ok` or `{"received":true}`) checked for ASCII in JS before any call to the decoder. */
const SHORT = 256;

/** Encodes body bytes for storage: text when valid UTF-8 (the BOM kept), else base64. */
export function encodeBody(bytes: Uint8Array): { body: string; bodyEncoding: "utf8" | "base64" } {
  if (bytes.length === 0) return { body: "", bodyEncoding: "utf8" };
  if (bytes.length <= SHORT && _isAscii(bytes)) {
    // The same text, without a call into the runtime's UTF-8 decoder (~1.5 µs per forwarded answer).
    return { body: String.fromCharCode.apply(null, bytes as unknown as number[]), bodyEncoding: "utf8" };
  }
  // Text without U+FFFD had no invalid sequence to replace: it is the fatal decoder's text. Text with one (bytes
  // that are not UTF-8, or valid text that holds U+FFFD) is told apart by the fatal decoder, as before.
  const text = utf8Lenient.decode(bytes);
  if (!text.includes("\uFFFD")) return { body: text, bodyEncoding: "utf8" };
  try {
    return { body: utf8.decode(bytes), bodyEncoding: "utf8" };
  } catch {
    return {
      body: bytes.toBase64(),
      bodyEncoding: "base64",
    };
  }
}

function _isAscii(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) if (bytes[i]! > 0x7f) return false;
  return true;
}

/**
 * The exact body bytes of a stored event.
 *
 * @example
 * ```ts
 * import { decodeBody } from "@hooktap/hooktap/testing";
 * const bytes = decodeBody({ body: "/wA=", bodyEncoding: "base64" }); // Uint8Array [255, 0]
 * ```
 */
export function decodeBody(event: Pick<CapturedEvent, "body" | "bodyEncoding">): Uint8Array {
  if (event.bodyEncoding === "base64") {
    // Lenient like Node's Buffer: a hand-edited line (stray characters, no padding) still decodes.
    const clean = event.body.replace(/[^A-Za-z0-9+/]/g, "");
    return Uint8Array.fromBase64(clean, { lastChunkHandling: "loose" });
  }
  return utf8Encoder.encode(event.body);
}

/** The millisecond of the last {@linkcode isoTime} and its text. */
let isoMs = NaN;
let isoText = "";

/**
 * `date.toISOString()`, the text kept for the millisecond it was last asked for: ~0.7 µs a call on Deno 2.9,
 * and under load a dozen requests arrive in the same millisecond. A date that is not a time (NaN) is never
 * kept: `toISOString` throws for it, as before.
 */
export function isoTime(date: Date): string {
  const ms = date.getTime();
  if (ms === isoMs) return isoText;
  const text = date.toISOString();
  isoMs = ms;
  isoText = text;
  return text;
}

/** Builds the record of a request. */
export function buildEvent(parts: RequestParts): CapturedEvent {
  const { body, bodyEncoding } = encodeBody(parts.body);
  return {
    v: RECORD_VERSION,
    id: parts.id,
    endpoint: parts.endpoint,
    receivedAt: isoTime(parts.receivedAt),
    method: parts.method,
    path: parts.path,
    query: parts.query,
    headers: parts.headers,
    body,
    bodyEncoding,
    bodySize: parts.body.length,
    remoteAddr: parts.remoteAddr,
  };
}

/** One line of the store: the record as JSON and a newline. */
export function eventLine(event: CapturedEvent): string {
  return JSON.stringify(event) + "\n";
}

/** First value of a header (case-insensitive) in a record's header list. */
export function headerValue(headers: readonly [string, string][], name: string): string | undefined {
  const lower = _isLowerAscii(name) ? name : name.toLowerCase();
  const n = lower.length;
  // A name of another length cannot match: it is skipped without making its lower-case copy (the receiver
  // looks up several headers per request, each against every header of the request). An ASCII name is
  // compared letter by letter, case folded, where `toLowerCase` made a new string per call and per header.
  for (let i = 0; i < headers.length; i++) {
    const header = headers[i]!;
    const k = header[0];
    if (k.length === n && (k === lower || _foldsTo(k, lower))) return header[1];
  }
  return undefined;
}

/** Whether `s` is ASCII without an upper-case letter (its `toLowerCase()` is itself). */
function _isLowerAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c > 0x7f || (c >= 0x41 && c <= 0x5a)) return false;
  }
  return true;
}

/** `k.toLowerCase() === lower` for `k` as long as `lower`, without the copy when `k` is ASCII. */
function _foldsTo(k: string, lower: string): boolean {
  for (let i = 0; i < k.length; i++) {
    let c = k.charCodeAt(i);
    if (c > 0x7f) return k.toLowerCase() === lower;
    if (c >= 0x41 && c <= 0x5a) c += 0x20;
    // Letters past this one cannot change what this one lowers to: a difference here is one there.
    if (c !== lower.charCodeAt(i)) return false;
  }
  return true;
}

/**
 * Parses one stored line into an event, or `undefined` when the line is not
 * a v1 or v2 record (torn, corrupt, or from a newer format).
 *
 * @example
 * ```ts
 * import { parseEventLine } from "@hooktap/hooktap/testing";
 * for (const line of (await Deno.readTextFile(".hooktap/events.jsonl")).split("\n")) {
 *   const event = parseEventLine(line);
 *   if (event) console.log(event.id, event.endpoint);
 * }
 * ```
 */
export function parseEventLine(line: string): CapturedEvent | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const e = value as Partial<CapturedEvent>;
  if (
    (e.v !== RECORD_VERSION && e.v !== RECORD_VERSION_2) || typeof e.id !== "string" ||
    typeof e.endpoint !== "string" ||
    typeof e.body !== "string" || !Array.isArray(e.headers) ||
    (e.bodyEncoding !== "utf8" && e.bodyEncoding !== "base64")
  ) return undefined;
  const type = formTypeFix(e as CapturedEvent); // stored before form bodies were typed: typed right now
  if (type !== undefined) e.type = type;
  return e as CapturedEvent;
}
