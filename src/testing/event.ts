/**
 * The event a test sees: a stored record with typed accessors (the body as
 * bytes, text or JSON; headers with repeats; the arrival time as a `Date`).
 * Pure: no I/O.
 * @module
 */
import { type CapturedEvent, decodeBody, type StoredResponse, type Verdict } from "../event/record.ts";

/**
 * One received (or loaded) webhook. Build one from a stored record with
 * {@linkcode toReceivedEvent}; `startReceiver` and `loadEvents` hand them out.
 *
 * @example
 * ```ts
 * import { toReceivedEvent } from "@hooktap/hooktap/testing";
 * const event = toReceivedEvent({
 *   v: 1, id: "evt_20260101_01J0000000000000000000000", endpoint: "default",
 *   receivedAt: "2026-01-01T00:00:00.000Z", method: "POST", path: "/hook", query: "a=1",
 *   headers: [["Content-Type", "application/json"], ["X-Tag", "a"], ["X-Tag", "b"]],
 *   body: '{"ok":true}', bodyEncoding: "utf8", bodySize: 11, remoteAddr: "127.0.0.1",
 * });
 * console.log(event.json(), event.headerAll("x-tag"), event.searchParams.get("a")); // { ok: true } ["a", "b"] "1"
 * ```
 */
export interface ReceivedEvent {
  /** `evt_<YYYYMMDD>_<ULID>`; sorts in arrival order. */
  readonly id: string;
  /** Name of the endpoint it matched. */
  readonly endpoint: string;
  /** When it arrived. */
  readonly receivedAt: Date;
  /** HTTP method, upper case. */
  readonly method: string;
  /** URL path, percent-encoding kept. */
  readonly path: string;
  /** Raw query string without `?` (`""` when none). */
  readonly query: string;
  /** The query parameters. */
  readonly searchParams: URLSearchParams;
  /** Headers as received: `[name, value]` pairs in arrival order, repeats kept, names as sent. */
  readonly rawHeaders: readonly (readonly [string, string])[];
  /** The headers as a web `Headers` (repeats joined with `, `, except `set-cookie`). */
  readonly headers: Headers;
  /** Size of the body in bytes. */
  readonly size: number;
  /** The sender's provider (`github`, `stripe`), when configured or detected. */
  readonly provider?: string;
  /** The provider's event type (`push`, `invoice.paid`). */
  readonly type?: string;
  /** The signature verdict, when the endpoint has a provider or secret. */
  readonly verdict?: Verdict;
  /** Parameters of a pattern path. */
  readonly params?: Readonly<Record<string, string>>;
  /** What the sender was answered, when it was not the plain 200 (a custom response, a challenge). */
  readonly response?: StoredResponse;
  /** The record as stored in `.hooktap/events.jsonl`. */
  readonly record: CapturedEvent;
  /** First value of a header (any case), or `undefined`. */
  header(name: string): string | undefined;
  /** Every value of a header (any case), in arrival order. */
  headerAll(name: string): string[];
  /** The exact body bytes (a fresh copy). */
  bytes(): Uint8Array;
  /** The body decoded as UTF-8. */
  text(): string;
  /**
   * The body parsed as JSON.
   * @throws {SyntaxError} naming the event when the body is not JSON.
   */
  json<T = unknown>(): T;
}

/**
 * Wraps a stored record as a {@linkcode ReceivedEvent}.
 *
 * @example
 * ```ts
 * import { parseEventLine, toReceivedEvent } from "@hooktap/hooktap/testing";
 * const line = (await Deno.readTextFile(".hooktap/events.jsonl")).split("\n")[0] ?? "";
 * const record = parseEventLine(line);
 * if (record) console.log(toReceivedEvent(record).text());
 * ```
 */
export function toReceivedEvent(record: CapturedEvent): ReceivedEvent {
  const bytes = decodeBody(record);
  let headers: Headers | undefined;
  const optional: {
    provider?: string;
    type?: string;
    verdict?: Verdict;
    params?: Record<string, string>;
    response?: StoredResponse;
  } = {};
  if (record.provider !== undefined) optional.provider = record.provider;
  if (record.type !== undefined) optional.type = record.type;
  if (record.verdict !== undefined) optional.verdict = record.verdict;
  if (record.params !== undefined) optional.params = record.params;
  if (record.response !== undefined) optional.response = record.response;
  const all = (name: string) => {
    const lower = name.toLowerCase();
    return record.headers.filter(([k]) => k.toLowerCase() === lower).map(([, v]) => v);
  };
  return {
    id: record.id,
    endpoint: record.endpoint,
    receivedAt: new Date(record.receivedAt),
    method: record.method,
    path: record.path,
    query: record.query,
    searchParams: new URLSearchParams(record.query),
    rawHeaders: record.headers,
    get headers() {
      if (headers === undefined) {
        headers = new Headers();
        for (const [name, value] of record.headers) {
          try {
            headers.append(name, value);
          } catch {
            // A name or value the web Headers refuses (only in a hand-edited fixture): rawHeaders has it.
          }
        }
      }
      return headers;
    },
    size: bytes.length,
    ...optional,
    record,
    header: (name) => all(name)[0],
    headerAll: all,
    bytes: () => bytes.slice(),
    text: () => new TextDecoder().decode(bytes),
    json<T = unknown>(): T {
      const text = new TextDecoder().decode(bytes);
      try {
        return JSON.parse(text) as T;
      } catch (error) {
        const start = text.length > 40 ? `${text.slice(0, 40)}…` : text;
        throw new SyntaxError(
          `The body of ${record.id} (${record.method} ${record.path}) is not JSON; it starts ${
            JSON.stringify(start)
          }. Use .text() or .bytes().`,
          { cause: error },
        );
      }
    },
  };
}

/** One line about an event for messages: `POST /hook (endpoint default) at 12:00:00.123`. */
export function describeEvent(
  event: Pick<ReceivedEvent, "method" | "path" | "endpoint" | "receivedAt">,
): string {
  return `${event.method} ${event.path} (endpoint ${event.endpoint}) at ${event.receivedAt.toISOString()}`;
}
