/**
 * Sends a stored event again, to any URL, as the sender did: same method,
 * the exact body bytes, the original headers (minus connection-specific
 * ones). Redirects are not followed: the target's own answer is reported.
 * `fetch` is injected, with the real one as default.
 * @module
 */
import { NetworkError, UsageError } from "../errors.ts";
import { type CapturedEvent, decodeBody } from "../event/record.ts";
import { replayHeaders } from "./headers.ts";

/** Options of {@linkcode replay}. */
export interface ReplayOptions {
  /** The fetch to send with. @default globalThis.fetch */
  fetch?: typeof globalThis.fetch;
  /** `[name, value]` headers that add to or replace the stored ones; an empty value removes. @default [] */
  headers?: readonly [string, string][];
  /** Method to send instead of the stored one. @default the event's method */
  method?: string;
  /** Longest wait for the answer's headers and preview, in milliseconds. @default 30000 */
  timeoutMs?: number;
  /** Cancels the request (Ctrl-C). */
  signal?: AbortSignal;
  /** How much of the answer's body to keep, in bytes. @default 4096 */
  previewBytes?: number;
  /** Clock for the duration, in milliseconds. @default performance.now */
  now?: () => number;
}

/** What the target answered. */
export interface ReplayResult {
  id: string;
  url: string;
  method: string;
  status: number;
  statusText: string;
  /** Whether the status is 2xx. */
  ok: boolean;
  /** Time from sending to the end of the preview, in milliseconds. */
  durationMs: number;
  /** The answer's `location` header (on a redirect, which is not followed). */
  location?: string;
  contentType?: string;
  /** Start of the answer's body, decoded as UTF-8. */
  body: string;
  /** Whether the body was longer than the preview. */
  truncated: boolean;
}

const METHOD_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Checks a method given on the command line.
 * @throws {UsageError} when it is not an HTTP method token.
 */
export function checkMethod(method: string): void {
  if (!METHOD_TOKEN.test(method)) {
    throw new UsageError(
      `--method must be an HTTP method like POST or PUT (letters, no spaces), got "${method}".`,
    );
  }
}

/**
 * The URL a replay goes to: `to`, with the event's query string when `to` has none.
 * @throws {UsageError} when `to` is not an http(s) URL (suggesting `http://` when it lacks a scheme).
 */
export function replayUrl(event: Pick<CapturedEvent, "query">, to: string): URL {
  const bare = /^(localhost|\d{1,3}(\.\d{1,3}){3}|\[[0-9a-f:]+\]|[a-z0-9-]+(\.[a-z0-9-]+)+)(:\d+)?(\/|$)/i;
  if (bare.test(to)) {
    throw new UsageError(`--to needs a scheme: did you mean http://${to} ? (got "${to}")`);
  }
  let url: URL;
  try {
    url = new URL(to);
  } catch {
    throw new UsageError(`--to must be a full URL like http://localhost:3000/webhook, got "${to}".`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UsageError(`--to must be an http:// or https:// URL, got "${to}".`);
  }
  if (url.search === "" && !to.includes("?") && event.query !== "") url.search = `?${event.query}`;
  return url;
}

/** A one-line reason why `url` could not be reached. */
export function networkFailure(error: unknown, url: URL, timeoutMs: number): NetworkError {
  const where = `${url.protocol}//${url.host}`;
  const name = (error as { name?: string } | null)?.name;
  if (name === "TimeoutError") {
    return new NetworkError(
      `No answer from ${where} within ${timeoutMs / 1000} s (--timeout to wait longer).`,
    );
  }
  if (name === "AbortError") return new NetworkError("Replay cancelled.");
  const cause = (error as { cause?: unknown } | null)?.cause;
  const text = `${error instanceof Error ? error.message : String(error)} ${
    cause instanceof Error ? cause.message : ""
  }`;
  let reason: string;
  if (/connection refused/i.test(text)) {
    reason = `connection refused: nothing listens on ${url.host} (is your app running?)`;
  } else if (/dns error|failed to lookup|name or service not known|nodename nor servname/i.test(text)) {
    reason = `cannot resolve the host name "${url.hostname}" (DNS)`;
  } else if (/certificate|tls|ssl|corrupt message|handshake/i.test(text)) {
    const detail = text.replace(/^.*client error \(Connect\): /s, "").trim().replace(/[.\s]+$/, "");
    reason = `TLS failed (${detail}); check that ${where} serves https, or use http://${url.host}`;
  } else if (/requests to port \d+ are blocked/i.test(text)) {
    reason = `port ${url.port} is on the list of ports fetch refuses to use; pick another port`;
  } else if (/connection reset|broken pipe|connection closed/i.test(text)) {
    reason = "the connection was closed before an answer came";
  } else reason = text.trim();
  return new NetworkError(`Cannot replay to ${where}: ${reason.replace(/[.\s]+$/, "")}.`, { cause: error });
}

async function _preview(response: Response, max: number): Promise<{ body: string; truncated: boolean }> {
  if (response.body === null) return { body: "", truncated: false };
  const reader = response.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  while (true) {
    const { value, done } = await reader.read();
    if (done) break;
    parts.push(value);
    size += value.length;
    if (size > max) {
      truncated = true;
      await reader.cancel().catch(() => {});
      break;
    }
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  return { body: new TextDecoder().decode(all.subarray(0, max)), truncated };
}

/**
 * Sends `event` to `to` and reports the answer.
 * @throws {NetworkError} when the target cannot be reached or does not answer in time.
 */
export async function replay(
  event: CapturedEvent,
  to: string,
  options: ReplayOptions = {},
): Promise<ReplayResult> {
  const { fetch = globalThis.fetch, now = () => performance.now() } = options;
  const url = replayUrl(event, to);
  const method = (options.method ?? event.method).toUpperCase();
  const timeoutMs = options.timeoutMs ?? 30_000;
  const bodyless = method === "GET" || method === "HEAD";
  const signals = [AbortSignal.timeout(timeoutMs), ...(options.signal ? [options.signal] : [])];
  const started = now();
  try {
    const response = await fetch(url, {
      method,
      headers: replayHeaders(event.headers, options.headers),
      body: bodyless ? null : decodeBody(event) as Uint8Array<ArrayBuffer>,
      redirect: "manual",
      signal: AbortSignal.any(signals),
    });
    const { body, truncated } = await _preview(response, options.previewBytes ?? 4096);
    const result: ReplayResult = {
      id: event.id,
      url: url.href,
      method,
      status: response.status,
      statusText: response.statusText,
      ok: response.status >= 200 && response.status < 300,
      durationMs: Math.round((now() - started) * 10) / 10,
      body,
      truncated,
    };
    const location = response.headers.get("location");
    if (location !== null) result.location = location;
    const contentType = response.headers.get("content-type");
    if (contentType !== null) result.contentType = contentType;
    return result;
  } catch (error) {
    throw networkFailure(error, url, timeoutMs);
  }
}
