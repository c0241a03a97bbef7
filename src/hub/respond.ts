/**
 * The hub's plain answers: text (one line, newline-terminated) and JSON,
 * and the 404 that a missing channel and an unknown path share.
 * @module
 */

/** Body of the 404 for a missing or unknown channel: the same for both, so ids cannot be probed. */
export const NO_CHANNEL = "No channel here.";

/**
 * On every answer of the hub's own: a browser shown one (a 404 naming a path, a JSON status) takes it as the
 * type it says, never as a page whose text could run as code.
 */
export const NO_SNIFF = { "x-content-type-options": "nosniff" } as const;

/** A `text/plain` answer (a newline is added). */
export function text(status: number, body: string, headers: Record<string, string> = {}): Response {
  return new Response(body + "\n", {
    status,
    headers: { "content-type": "text/plain; charset=utf-8", ...NO_SNIFF, ...headers },
  });
}

/** A JSON answer. */
export function json(value: unknown, status = 200): Response {
  return new Response(JSON.stringify(value), {
    status,
    headers: { "content-type": "application/json", ...NO_SNIFF },
  });
}
