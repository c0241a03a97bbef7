/**
 * The answers whose connection the listener must close: given before the
 * request's body was read to its end, while no read of it is pending (a body
 * too large, refused by the budget, unreadable). Marked here by the handler,
 * read by the Deno.serve stack (src/server/close.ts says why it needs them).
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
