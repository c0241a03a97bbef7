/**
 * Reads a request body with a cap, so memory never holds more than the
 * limit, whatever `Content-Length` says or however the body is chunked.
 * @module
 */
import { concatBytes } from "../bytes.ts";
import type { IncomingRequest } from "./request.ts";

/** The body was larger than the limit. */
export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`Request body is larger than ${limit} bytes.`);
    this.name = "BodyTooLargeError";
  }
}

/** Shutdown stopped waiting for the body (the request gets a retryable 503). */
export class BodyCutOffError extends Error {
  constructor() {
    super("hooktap is shutting down and stopped waiting for the rest of the body.");
    this.name = "BodyCutOffError";
  }
}

/**
 * The headers announce a body the server gives no access to (Deno.serve
 * hides the bodies of GET and HEAD requests): never store it as empty.
 */
export class BodyUnreadableError extends Error {
  constructor() {
    super("The request announces a body that this server cannot read.");
    this.name = "BodyUnreadableError";
  }
}

const EMPTY = new Uint8Array(0);
/**
 * `step`, or a {@linkcode BodyCutOffError} if `signal` aborts first. The
 * listener is removed once `step` settles: a shared promise raced by every
 * request would keep one reaction per request for ever (a leak).
 */
function unlessCutOff<T>(step: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return step;
  if (signal.aborted) return Promise.reject(new BodyCutOffError());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new BodyCutOffError());
    signal.addEventListener("abort", onAbort, { once: true });
    step.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/**
 * Reads the whole body of `request`, at most `limit` bytes. `declared` is
 * its `Content-Length` header (`null` when absent), passed in so that the
 * caller's raw header list is read once, not a second time through `Headers`.
 * `chunked` says whether a `Transfer-Encoding` header is present.
 * @throws {BodyTooLargeError} when the body is larger than `limit`.
 * @throws {BodyUnreadableError} when a body is announced but `request.body` is `null`.
 * @throws {BodyCutOffError} when `cutOff` aborts before the body is complete.
 * @throws the stream's own error when the client goes away mid-body.
 */
export async function readBody(
  request: IncomingRequest,
  limit: number,
  declared: string | null,
  options: { chunked?: boolean; cutOff?: AbortSignal | undefined } = {},
): Promise<Uint8Array> {
  if (declared !== null && Number(declared) > limit) throw new BodyTooLargeError(limit);
  if (request.body === null) {
    if (options.chunked || (declared !== null && Number(declared) !== 0)) throw new BodyUnreadableError();
    return EMPTY;
  }
  const { cutOff } = options;
  if (declared !== null) {
    // Length known and within the limit: the runtime reads it in one go.
    return new Uint8Array(await unlessCutOff(request.arrayBuffer(), cutOff));
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  try {
    for (;;) {
      const { done, value } = await unlessCutOff(reader.read(), cutOff);
      if (done) break;
      size += value.length;
      if (size > limit) throw new BodyTooLargeError(limit);
      chunks.push(value);
    }
  } catch (error) {
    reader.cancel().catch(() => {});
    throw error;
  } finally {
    reader.releaseLock();
  }
  return concatBytes(chunks);
}
