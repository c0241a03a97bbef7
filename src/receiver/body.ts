/**
 * Reads a request body with a cap, so memory never holds more than the
 * limit, whatever `Content-Length` says or however the body is chunked.
 * @module
 */
import { concatBytes } from "../bytes.ts";

/** The body was larger than the limit. */
export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`Request body is larger than ${limit} bytes.`);
    this.name = "BodyTooLargeError";
  }
}

const EMPTY = new Uint8Array(0);

/**
 * Reads the whole body of `request`, at most `limit` bytes. `declared` is
 * its `Content-Length` header (`null` when absent), passed in so that the
 * caller's raw header list is read once, not a second time through `Headers`.
 * @throws {BodyTooLargeError} when the body is larger than `limit`.
 * @throws the stream's own error when the client goes away mid-body.
 */
export async function readBody(
  request: Request,
  limit: number,
  declared: string | null,
): Promise<Uint8Array> {
  if (declared !== null && Number(declared) > limit) throw new BodyTooLargeError(limit);
  if (request.body === null) return EMPTY;
  if (declared !== null) {
    // Length known and within the limit: the runtime reads it in one go.
    return new Uint8Array(await request.arrayBuffer());
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > limit) throw new BodyTooLargeError(limit);
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  return concatBytes(chunks);
}
