/**
 * Which events the inspector shows: the list's and the live stream's
 * filters, read from a URL's query string. One small file on purpose: the
 * CLI's filter module (src/store/read/filter.ts) may take it over. Pure.
 * @module
 */
import { type CapturedEvent, decodeBody } from "../../event/record.ts";

/** Delivery status of an event, as the list shows it. */
export type DeliveryStatus = "none" | "pending" | "delivered" | "retrying" | "failed";

/** The inspector's filters; every field that is set must match. */
export interface InspectorFilter {
  /** Endpoint name, exact. */
  endpoint?: string;
  /** HTTP method, any case. */
  method?: string;
  /** Provider name (`github`), exact, any case. */
  provider?: string;
  /** Event type (`push`, `invoice.paid`), exact. */
  type?: string;
  /** Verdict status (`valid`, `invalid`, ...); `none` for events without a verdict. */
  verdict?: string;
  /** Delivery status. */
  delivery?: DeliveryStatus;
  /** Received at or after (ms since the epoch). */
  since?: number;
  /** Received before (ms since the epoch). */
  until?: number;
  /** Text searched (case-insensitively) in the body bytes (decoded when base64) and header values. */
  q?: string;
}

const DELIVERY: readonly string[] = ["none", "pending", "delivered", "retrying", "failed"];

/** A time given as ISO 8601 or ms since the epoch; `undefined` when blank. */
function _time(text: string | null, name: string): number | undefined {
  if (text === null || text.trim() === "") return undefined;
  const t = text.trim();
  const at = /^\d+$/.test(t) ? Number(t) : Date.parse(t);
  if (Number.isNaN(at)) {
    throw new FilterError(`${name} must be an ISO 8601 time or ms since the epoch, got "${t}"`);
  }
  return at;
}

/** A filter value in a query string is wrong. */
export class FilterError extends Error {
  override name = "FilterError";
}

/**
 * Reads the filters from a query string; blank values count as unset.
 * @throws {FilterError} for a bad time or delivery status.
 */
export function parseFilter(params: URLSearchParams): InspectorFilter {
  const f: InspectorFilter = {};
  const text = (name: string) => {
    const v = params.get(name)?.trim();
    return v === undefined || v === "" ? undefined : v;
  };
  const endpoint = text("endpoint");
  if (endpoint !== undefined) f.endpoint = endpoint;
  const method = text("method");
  if (method !== undefined) f.method = method.toUpperCase();
  const provider = text("provider");
  if (provider !== undefined) f.provider = provider.toLowerCase();
  const type = text("type");
  if (type !== undefined) f.type = type;
  const verdict = text("verdict");
  if (verdict !== undefined) f.verdict = verdict;
  const delivery = text("delivery");
  if (delivery !== undefined) {
    if (!DELIVERY.includes(delivery)) {
      throw new FilterError(`delivery must be one of ${DELIVERY.join(", ")}, got "${delivery}"`);
    }
    f.delivery = delivery as DeliveryStatus;
  }
  const since = _time(params.get("since"), "since");
  if (since !== undefined) f.since = since;
  const until = _time(params.get("until"), "until");
  if (until !== undefined) f.until = until;
  const q = params.get("q");
  if (q !== null && q !== "") f.q = q;
  return f;
}

const latin1 = new TextDecoder("latin1");

/** Whether the body or a header value holds `q` (lower-cased). Base64 bodies are searched as bytes. */
function _contains(event: CapturedEvent, q: string): boolean {
  for (const [, value] of event.headers) if (value.toLowerCase().includes(q)) return true;
  if (event.bodyEncoding === "utf8") return event.body.toLowerCase().includes(q);
  // Binary: compare on the bytes, each byte as one char, against the UTF-8 bytes of the query.
  const bytes = latin1.decode(decodeBody(event)).toLowerCase();
  const needle = latin1.decode(new TextEncoder().encode(q));
  return bytes.includes(needle);
}

/** Whether `event`, whose delivery status is `delivery`, passes `filter`. */
export function matchesInspectorFilter(
  event: CapturedEvent,
  filter: InspectorFilter,
  delivery: DeliveryStatus = "none",
): boolean {
  if (filter.endpoint !== undefined && event.endpoint !== filter.endpoint) return false;
  if (filter.method !== undefined && event.method.toUpperCase() !== filter.method) return false;
  if (filter.provider !== undefined && (event.provider ?? "").toLowerCase() !== filter.provider) return false;
  if (filter.type !== undefined && event.type !== filter.type) return false;
  if (filter.verdict !== undefined && (event.verdict?.status ?? "none") !== filter.verdict) return false;
  if (filter.delivery !== undefined && delivery !== filter.delivery) return false;
  if (filter.since !== undefined || filter.until !== undefined) {
    const at = Date.parse(event.receivedAt);
    if (filter.since !== undefined && at < filter.since) return false;
    if (filter.until !== undefined && at >= filter.until) return false;
  }
  if (filter.q !== undefined && !_contains(event, filter.q.toLowerCase())) return false;
  return true;
}
