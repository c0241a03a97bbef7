/**
 * The body of a GET or HEAD request on Deno.serve. The runtime reads it
 * (hyper frames it by `Content-Length` or chunks, as for any method), but
 * the request's `body` getter in Deno 2.9 answers `null` for GET, HEAD and
 * CONNECT without asking for it (ext/http/00_serve.ts, `get body()` of the
 * inner request: "If the method is GET, HEAD, or CONNECT, we do not want to
 * include a body here, even if the Rust side of the code is willing to
 * provide it to us").
 *
 * {@linkcode unlockBody} asks for it anyway: it finds the inner request
 * (the `Request`'s own symbol described `"request"`), shadows its `method`
 * with `"POST"` for the one call of the `body` getter, then removes the
 * shadow. The getter caches what it made, so the `Request`'s `body`,
 * `arrayBuffer()` and the stream reader all read the real bytes; every other
 * reader of the method sees the real one (the `Request` caches its method
 * before). These are runtime internals: when they change, nothing is
 * unlocked, `body` stays `null`, and the handler answers 501 as before
 * (never an empty body stored): tests/receiver_stack_test.ts notices.
 * @module
 */
import { headerValue } from "../event/record.ts";
import { innerRequest, requestHeaders } from "../receiver/headers.ts";

/**
 * Makes the body of a GET or HEAD `request` from Deno.serve readable through
 * `request.body`, before anything has read `body`. Does nothing to other
 * methods, or when the runtime's internals are not the ones expected.
 * @returns whether `request.body` is now the body the client sent.
 */
export function unlockBody(request: Request): boolean {
  const method = request.method; // cached by the Request before the shadow
  if (method !== "GET" && method !== "HEAD") return false;
  const inner = innerRequest(request);
  if (inner === undefined || Object.hasOwn(inner, "method")) return false;
  try {
    Object.defineProperty(inner, "method", { value: "POST", configurable: true });
  } catch {
    return false;
  }
  try {
    void inner.body;
  } catch {
    return false;
  } finally {
    delete inner.method;
  }
  return request.body !== null;
}

/**
 * {@linkcode unlockBody} for a GET or HEAD request whose headers announce a
 * body (a non-zero `Content-Length`, or `Transfer-Encoding`); read from the
 * raw header list, never through `request.headers` (whose first lookup on
 * Deno.serve replaces the raw list with the merged view).
 */
export function unlockDeclaredBody(request: Request): void {
  const method = request.method;
  if (method !== "GET" && method !== "HEAD") return;
  const headers = requestHeaders(request);
  const length = headerValue(headers, "content-length");
  if (
    (length !== undefined && length.trim() !== "0") || headerValue(headers, "transfer-encoding") !== undefined
  ) {
    unlockBody(request);
  }
}
