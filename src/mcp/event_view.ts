/**
 * Events as the tools show them: a compact summary per event
 * (`search_events`) and the whole event (`get_event`, `wait_for_event`):
 * the request exactly, its verdict, and every delivery per target. A big
 * body is cut, its size stated, and the rest is reachable by offset.
 * @module
 */
import { z } from "zod";
import type { DeliveryRecord } from "../event/delivery.ts";
import { type CapturedEvent, decodeBody } from "../event/record.ts";
import { VERDICT_NAMES } from "../names.ts";
import { safeLine } from "../text/sanitize.ts";
import { headerList, HEADERS_SCHEMA } from "./_headers.ts";
import { deliveriesOf, TARGET_DELIVERIES_SCHEMA, TARGET_STATE_SCHEMA, targetStates } from "./deliveries.ts";

export { HEADERS_SCHEMA };

/** The body bytes a tool returns at most by default. */
export const DEFAULT_BODY_LIMIT = 64 * 1024;
/** The body bytes a tool returns at most in one call. */
export const MAX_BODY_LIMIT = 1024 * 1024;

const VERDICT_SCHEMA = z.object({
  status: z.enum(VERDICT_NAMES),
  scheme: z.string().optional().describe("the scheme checked: github-sha256, stripe-v1, ..."),
  reason: z.string().optional().describe("why, for invalid and expired (and which secret matched)"),
});

/** One event in a list. */
export const EVENT_SUMMARY_SCHEMA = z.object({
  id: z.string(),
  receivedAt: z.string(),
  endpoint: z.string(),
  method: z.string(),
  path: z.string(),
  query: z.string(),
  provider: z.string().optional(),
  type: z.string().optional(),
  verdict: z.string().describe(`${VERDICT_NAMES.slice(0, -1).join(", ")} or ${VERDICT_NAMES.at(-1)}`),
  bodySize: z.number().int(),
  deliveries: z.array(TARGET_STATE_SCHEMA).optional().describe(
    "per target (kind forward, or other: a URL it was replayed to), when forwarded or replayed",
  ),
});

/** A (piece of a) body. */
export const BODY_SCHEMA = z.object({
  encoding: z.enum(["utf8", "base64"]).describe("utf8: `data` is the text; base64: the bytes are binary"),
  data: z.string().describe("the bytes from offset, as text or base64"),
  size: z.number().int().describe("the whole body's size in bytes"),
  offset: z.number().int().describe("byte offset of `data` in the body"),
  length: z.number().int().describe("bytes in `data`"),
  truncated: z.boolean().describe("more bytes follow: ask again with body_offset = nextOffset"),
  nextOffset: z.number().int().optional(),
});

/** One whole event. */
export const FULL_EVENT_SCHEMA = z.object({
  id: z.string(),
  receivedAt: z.string(),
  endpoint: z.string(),
  method: z.string(),
  path: z.string(),
  query: z.string().describe("raw query string without ?, empty when none"),
  headers: HEADERS_SCHEMA.describe("in arrival order, repeats kept"),
  body: BODY_SCHEMA,
  remoteAddr: z.string(),
  provider: z.string().optional(),
  type: z.string().optional(),
  verdict: VERDICT_SCHEMA.describe("an event stored without one is unsigned"),
  answered: z.object({ status: z.number().int(), source: z.string() }).optional()
    .describe(
      "what hooktap answered the sender itself (a challenge, the endpoint's response, enforce's 401); absent: " +
        'its plain 200, or, for a request relayed to the app (a delivery with source "relay"), the app\'s answer',
    ),
  trigger: z.object({ event: z.string(), fault: z.string().optional(), attempt: z.number().int() }).optional()
    .describe("sent by hooktap trigger"),
  deliveries: z.array(TARGET_DELIVERIES_SCHEMA).describe("every delivery per target with the app's answers"),
});

/** A summary's shape. */
export type EventSummary = z.infer<typeof EVENT_SUMMARY_SCHEMA>;
/** A whole event's shape. */
export type FullEvent = z.infer<typeof FULL_EVENT_SCHEMA>;

/** `event` in a list. */
export function summaryOf(event: CapturedEvent, records?: readonly DeliveryRecord[]): EventSummary {
  const s: EventSummary = {
    id: event.id,
    receivedAt: event.receivedAt,
    endpoint: event.endpoint,
    method: event.method,
    path: event.path,
    query: event.query,
    verdict: event.verdict?.status ?? "unsigned",
    bodySize: event.bodySize,
  };
  if (event.provider !== undefined) s.provider = event.provider;
  if (event.type !== undefined) s.type = event.type;
  if (event.forward !== undefined || records !== undefined) s.deliveries = targetStates(event, records);
  return s;
}

/** The end of a UTF-8 piece that ends at `end` or before it, never inside a character. */
function _charEnd(bytes: Uint8Array, end: number): number {
  if (end >= bytes.length) return bytes.length;
  let e = end;
  while (e > 0 && (bytes[e]! & 0xc0) === 0x80) e--; // a continuation byte: the character starts before
  return e;
}

/**
 * The bytes of `event`'s body from `offset`, `limit` at most. A UTF-8 body is cut between characters: a
 * piece starts at the character `offset` falls in and ends before the first that does not fit.
 */
export function bodyPiece(event: CapturedEvent, offset = 0, limit = DEFAULT_BODY_LIMIT): FullEvent["body"] {
  const bytes = event.bodyEncoding === "utf8" ? new TextEncoder().encode(event.body) : decodeBody(event);
  let from = Math.min(offset, bytes.length);
  // An offset inside a character (one the caller chose, not a nextOffset) starts at that character, so
  // `data` is always the body's own text, never a replacement character; `offset` says where it starts.
  if (event.bodyEncoding === "utf8") from = _charEnd(bytes, from);
  let end = Math.min(bytes.length, from + limit);
  if (event.bodyEncoding === "utf8") {
    end = _charEnd(bytes, end);
    if (end === from && from < bytes.length) end = _charEnd(bytes, from + 4) || from + 4; // limit < 1 char
  }
  const piece = bytes.subarray(from, end);
  const data = event.bodyEncoding === "utf8" ? new TextDecoder().decode(piece) : piece.toBase64();
  const body: FullEvent["body"] = {
    encoding: event.bodyEncoding,
    data,
    size: bytes.length,
    offset: from,
    length: piece.length,
    truncated: end < bytes.length,
  };
  if (end < bytes.length) body.nextOffset = end;
  return body;
}

/** `event` whole, its body from `offset` (`limit` bytes at most). */
export function fullEvent(
  event: CapturedEvent,
  records: readonly DeliveryRecord[] | undefined,
  offset = 0,
  limit = DEFAULT_BODY_LIMIT,
): FullEvent {
  const full: FullEvent = {
    id: event.id,
    receivedAt: event.receivedAt,
    endpoint: event.endpoint,
    method: event.method,
    path: event.path,
    query: event.query,
    headers: headerList(event.headers),
    body: bodyPiece(event, offset, limit),
    remoteAddr: event.remoteAddr,
    verdict: event.verdict ?? { status: "unsigned" },
    deliveries: deliveriesOf(event, records),
  };
  if (event.provider !== undefined) full.provider = event.provider;
  if (event.type !== undefined) full.type = event.type;
  if (event.response !== undefined) {
    full.answered = { status: event.response.status, source: event.response.source };
  }
  if (event.trigger !== undefined) full.trigger = event.trigger;
  return full;
}

/** One line for a person: `evt_... POST /github push (github) valid, 1.2 KB`. */
export function eventLine(e: EventSummary | FullEvent): string {
  const verdict = typeof e.verdict === "string" ? e.verdict : e.verdict.status;
  const size = "bodySize" in e ? e.bodySize : e.body.size;
  // Type and path come from the payload: one line each, whatever they hold.
  return safeLine(
    `${e.id}  ${e.receivedAt}  ${e.endpoint}  ${e.method} ${e.path}` +
      `${e.type !== undefined ? `  ${e.type}` : ""}${e.provider !== undefined ? ` (${e.provider})` : ""}` +
      `  ${verdict}  ${size} bytes`,
  );
}
