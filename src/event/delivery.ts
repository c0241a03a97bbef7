/**
 * The delivery record: one attempt to deliver a stored event to a URL
 * (forwarding, relay, or `hooktap replay`), one line of
 * `.hooktap/deliveries.jsonl`. Pure: no I/O.
 *
 * Lines start `{"v":2,"id":"dlv_...","event":"evt_...",` (fields in this
 * order), so readers can match an event's deliveries on bytes, as they do
 * for events.
 *
 * Format versions: v1 had `target` = the URL sent to. v2 (issue 22) makes the
 * unit one delivery of one event to one *named* target: `target` is the
 * target's name and `url` the URL. Readers accept both: a v1 line is read
 * as v2 with `url` = its `target` and the name derived from that URL
 * ({@linkcode targetNameOf}). Nothing is rewritten.
 * @module
 */

/** How much of the app's answer body a delivery record keeps, in bytes (decoded, when it came compressed). */
export const RECORD_BODY_BYTES = 64 * 1024;

/** Version of the delivery record format. */
export const DELIVERY_VERSION = 2;

/** One delivery attempt. */
export interface DeliveryRecord {
  /** Record format version. */
  v: 2;
  /** `dlv_<YYYYMMDD>_<ULID>`, in the order attempts started. */
  id: string;
  /** Id of the event delivered. */
  event: string;
  /** Endpoint of that event. */
  endpoint: string;
  /** Who sent it: `dev`'s forwarder in queue or relay mode, or `hooktap replay`. */
  source: "forward" | "relay" | "replay";
  /** The name of the target sent to (unique in its endpoint; see {@linkcode targetNameOf}). */
  target: string;
  /** The URL sent to (path parameters filled in, query added). */
  url: string;
  /** Method sent. */
  method: string;
  /** 1 for the first attempt of this event to this target by this source, then 2, 3, ... */
  attempt: number;
  /** When the attempt started, ISO 8601 UTC with milliseconds. */
  startedAt: string;
  /** From sending to the end of the answer (or the error), in milliseconds. */
  durationMs: number;
  /**
   * Sent again at a new start of `dev` (the last run stopped before this event's delivery settled) when the
   * app may have seen it already: the last run did not stop cleanly (an attempt of it may have gone
   * unrecorded), or an earlier attempt to this target reached something listening (not `refused`). An
   * event whose every try found nothing listening, after a clean stop, is sent without it.
   */
  resumed?: boolean;
  /** The signature headers were made anew for this attempt (timestamped schemes). */
  resigned?: boolean;
  /** The app's status, when it answered. */
  status?: number;
  /** The app's status text. */
  statusText?: string;
  /** The app's response headers, in order. */
  headers?: [string, string][];
  /** The start of the app's response body: text when valid UTF-8, else base64. */
  body?: string;
  /** Encoding of `body`. */
  bodyEncoding?: "utf8" | "base64";
  /** Size of the whole response body in bytes, as far as it was read. */
  bodySize?: number;
  /** The body was longer than what was kept (with `decodedFrom`: than what was decoded and kept). */
  truncated?: boolean;
  /**
   * `body` is the answer decoded from this `Content-Encoding` (`gzip`, `deflate`, `br`), its first 64 KiB;
   * `bodySize` stays the size the app sent, compressed. Absent: `body` is the bytes as they came.
   */
  decodedFrom?: string;
  /**
   * Relay only: the status hooktap answered the sender with itself instead of the app's answer (502: no
   * answer, a body over 64 MiB, or dev stopped before the app answered; 503: the relayed answers in memory
   * were at hooktap's bound). Absent when the app's answer was passed on, and on records written before it
   * (src/send/answer_note.ts tells those).
   */
  senderStatus?: number;
  /**
   * Relay only: the sender hung up before the app answered, so the app's answer (or hooktap's) reached no one.
   */
  senderLeft?: true;
  /** Why there was no answer: refused, timeout, TLS, DNS. */
  error?: string;
  /**
   * Nothing listened (the connection was refused): the event waited for the app, and this try is not one of
   * the retry policy's attempts, nor counted as one by `logs`, `inspect` and the inspector. A replay's
   * (`"source": "replay"`, outcome `failed`) to a forward target changes nothing of the event's state: it
   * still waits, and the next `dev` sends it (src/send/delivery_state.ts).
   */
  refused?: true;
  /** When the next attempt is due, if one is scheduled. */
  retryAt?: string;
  /**
   * With `retryAt`: the connection closed without an answer, so the next attempt goes at `retryAt`, or
   * sooner when the connect check (about every second) sees the app restart (refused, then accepting).
   */
  retrySooner?: true;
  /** Whether the event counts as delivered to this target after this attempt (2xx, or not retried further). */
  outcome: "delivered" | "retrying" | "failed";
}

/**
 * The name a target gets when it has none: its URL's host and path
 * (`localhost:3000/webhooks/:provider`), trailing slash and query left out,
 * or `"default"` when that is empty. Stable across runs and reloads.
 */
export function targetNameOf(to: string): string {
  let url: URL;
  try {
    url = new URL(to);
  } catch {
    return to === "" ? "default" : to;
  }
  const path = decodeURI(url.pathname).replace(/\/+$/, "");
  const name = `${url.host}${path}`;
  return name === "" ? "default" : name;
}
