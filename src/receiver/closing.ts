/**
 * The answers whose connection the listener must close: given before the
 * request's body was read to its end, while no read of it is pending (a body
 * too large, refused by the budget, unreadable). Marked here by the handler,
 * read by the listeners on Deno.serve (dev's stack and the hub), which
 * answer them with {@linkcode closingAnswer}.
 *
 * Why: Deno.serve (2.9) keeps a connection open after an answer with
 * `connection: close` when the request body was not read to its end: it waits
 * for (and reads) the rest of the body for as long as the client keeps the
 * connection (issue 38: a 408's connection still open 66 s later). The only
 * way found to make it close is an answer whose body stream fails after its
 * bytes: the runtime then drops the connection. So the client gets the status,
 * the headers and the whole text of the answer, chunked, and then the
 * connection closes without the last (empty) chunk: an HTTP client reports the
 * answer's status and then an incomplete body. tests/fault/memory_test.ts
 * checks that the server really closes.
 *
 * Only for answers given while no read of the body is pending: while a read
 * still waits in the runtime (a 408 for a stalled body, a 431 for trailer
 * fields, the 503 of shutdown), a failing answer closes nothing and may not
 * even be sent. Those are sent as they are: Deno.serve closes a 431's
 * connection as the trailer flood goes on (tested); after a 408 the
 * connection stays open while the client keeps it (docs/security.md says so).
 * @module
 */

const closing = new WeakSet<Response>();

/** Marks `response` as one whose connection must close after it; returns it. */
export function closeAfter(response: Response): Response {
  closing.add(response);
  return response;
}

/** Whether {@linkcode closeAfter} marked `response`. */
export function mustClose(response: Response): boolean {
  return closing.has(response);
}

/** The error that ends a closing answer's body (the stack's `onError` ignores it). */
export class ConnectionClosedOnPurpose extends Error {
  constructor() {
    super("hooktap closed the connection after its answer");
    this.name = "ConnectionClosedOnPurpose";
  }
}

/**
 * `response` (status, headers, text) with a body that ends by dropping the
 * connection on Deno.serve.
 */
export async function closingAnswer(response: Response): Promise<Response> {
  const bytes = await response.bytes();
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  let sent = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (!sent && bytes.length > 0) {
        sent = true;
        controller.enqueue(bytes);
      } else controller.error(new ConnectionClosedOnPurpose());
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}
