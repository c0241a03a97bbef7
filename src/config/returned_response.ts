/**
 * The `Response` a config's response function returned, read to the plain
 * answer the receiver checks and sends (`{ status, headers, body }`), or why
 * it could not be read. One reader for both places such a function runs: the
 * receiver's own thread (src/receiver/answer.ts: the library's
 * `startReceiver`, whose functions run in the caller's isolate) and a
 * config's worker (./code_worker.ts: `hooktap dev`). The worker's code is a
 * string of JavaScript, which cannot import, so it carries this function's
 * own text (`String(readReturnedResponse)`: the emitted JavaScript, from
 * source and from the npm bundle alike). Hence it stays self-contained: it
 * names nothing from outside itself but the platform's globals.
 * @module
 */

/** What {@linkcode readReturnedResponse} gives: the answer, or why it could not be read. */
export type ReturnedResponse =
  | { ok: true; value: { status: number; headers: [string, string][]; body: string } }
  | { ok: false; failed: string };

/** `response` read to its status, headers (in order) and body text; never throws. */
export async function readReturnedResponse(response: Response): Promise<ReturnedResponse> {
  try {
    const value = { status: response.status, headers: [...response.headers], body: await response.text() };
    return { ok: true, value };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      failed: `the Response the endpoint's response function returned could not be read: ${why}`,
    };
  }
}
