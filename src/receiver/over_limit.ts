/**
 * The rest of a body whose declared length is over the limit, before its
 * 413 goes out. On Deno.serve (2.9) a 413 is either complete or followed by
 * the server closing its connection, not both: the close is made by ending
 * the answer's chunked body with an error (./closing.ts), so the answer lacks
 * its last chunk (curl: exit 18; fetch: the body cannot be read); and once a
 * read of the request's body waits in the runtime, nothing the handler does
 * closes the connection any more (docs/dev.md). So:
 *
 * - a rest of at most the limit again ({@linkcode drainAllowance}) is read
 *   into one small buffer and dropped, for at most {@linkcode DRAIN_MS}: the
 *   413 goes out complete (a sender costs at most twice the limit);
 * - a longer rest declared by a sender that waits for a go-ahead
 *   (`Expect: 100-continue`, curl's way with large bodies) is left unread:
 *   that sender reads the answer before it sends, gets the whole 413 with
 *   `connection: close`, and closes;
 * - any other rest is given up: the 413 whose connection the server closes.
 *
 * A chunked body over the limit is given up (./body.ts): its rest has no
 * known length, and a drain that then waited for bytes that never come would
 * leave a connection the server can no longer close.
 * @module
 */
import { headerValue } from "../event/record.ts";
import { requestHeaders } from "./headers.ts";
import type { IncomingRequest } from "./request.ts";

/**
 * What became of the rest of a body over the limit: read and dropped, left
 * to the sender (a drain that ran out of time counts here: its read still
 * waits), or given up (the connection is closed after the answer).
 */
export type RestOfBody = "drained" | "left" | "given up";

/** The most bytes of a declared body over `limit` read and dropped so that its 413 goes out complete. */
export function drainAllowance(limit: number): number {
  return 2 * limit;
}

/** The longest a drain waits for the rest of a body. */
export const DRAIN_MS = 2000;

/**
 * The size of the one buffer a drain reads into: reads into larger views cost a stalled body about 125 KB
 * more of Deno.serve's memory (./body.ts, `FIRST_BLOCK`).
 */
const SCRATCH = 4 * 1024;

/**
 * The rest of a body whose declared length, `declared`, is over `limit`:
 * drained when cheap, left to a sender that waits for a go-ahead, else given
 * up (see the module's documentation).
 */
export async function drainDeclared(
  request: IncomingRequest,
  declared: number,
  limit: number,
  cutOff?: AbortSignal,
): Promise<RestOfBody> {
  const body = request.body;
  if (body === null) return "given up";
  if (declared > drainAllowance(limit)) {
    // The body is left untouched (Deno.serve then adds its own `connection: close` as well).
    if (headerValue(requestHeaders(request), "expect")?.toLowerCase() === "100-continue") return "left";
    // Given up, said so before the answer goes out: Deno.serve adds its own `connection: close` to an answer
    // while the request's body is unread, which made the 413's header appear twice.
    await body.cancel().catch(() => {});
    return "given up";
  }
  let byob: ReadableStreamBYOBReader | undefined;
  try {
    byob = body.getReader({ mode: "byob" });
  } catch { /* not a byte stream */ }
  const reader = byob ?? body.getReader();
  let stopped = false;
  const stop = () => {
    stopped = true;
    reader.cancel().catch(() => {});
  };
  const timer = setTimeout(stop, DRAIN_MS);
  cutOff?.addEventListener("abort", stop, { once: true });
  let scratch: Uint8Array = new Uint8Array(byob === undefined ? 0 : SCRATCH);
  try {
    if (cutOff?.aborted) stop();
    // The runtime frames the body by its declared length: the reads end there.
    for (;;) {
      const { done, value } = byob === undefined
        ? await (reader as ReadableStreamDefaultReader<Uint8Array>).read()
        : await byob.read(scratch);
      // A read the timer or shutdown cancelled resolves as done: not the body's end.
      if (stopped) return "left";
      if (done) return "drained";
      if (byob !== undefined) scratch = new Uint8Array(value.buffer);
    }
  } catch {
    return "given up"; // the client went away: nothing to answer on that connection
  } finally {
    clearTimeout(timer);
    cutOff?.removeEventListener("abort", stop);
    reader.releaseLock();
  }
}
