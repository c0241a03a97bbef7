/**
 * The Deno.serve stack: the fastest, but it hides GET and HEAD bodies (the
 * handler answers 501 when one is announced, never storing it as empty).
 *
 * Deno.serve (2.9) takes no timeout or connection-cap options, and an accept
 * error (`EMFILE`: out of descriptors) ends its server. So this stack serves
 * again on the same port when that happens, backing off until the bind
 * succeeds: a descriptor flood costs the connections open at the time, never
 * the receiver. Stalled bodies are cut off by the body-inactivity watch in
 * the reader (src/receiver/stall.ts); header and keep-alive idle timeouts
 * and the connection cap are not available on this stack (docs/security.md).
 * @module
 */
import { describeError } from "../errors.ts";
import type { Handler } from "../receiver/handler.ts";
import { closingAnswer, ConnectionClosedOnPurpose } from "../receiver/closing.ts";
import { unlockDeclaredBody } from "./deno_body.ts";
import { serveAgain } from "./serve_again.ts";
import type { ServingStack, StackOptions } from "./_types.ts";

/** Serves `handler` with Deno.serve. Throws Deno's own error when the port cannot be bound. */
export function serveDeno(handler: Handler, options: StackOptions): Promise<ServingStack> {
  const { cutOff, budget, stall } = options;
  const start = (port: number) =>
    Deno.serve({
      hostname: options.hostname,
      port,
      onListen: () => {},
      onError: (error) => {
        if (!(error instanceof ConnectionClosedOnPurpose)) options.onError?.(error);
        return new Response(options.errorMessage, { status: 500 });
      },
    }, (request, info) => {
      unlockDeclaredBody(request); // a GET or HEAD body: see deno_body.ts
      // An answer before the body's end (413, 503...) closes its connection: the handler answers it through
      // `closing` (src/receiver/closing.ts), so that every other request goes without a frame of its own here.
      return handler(request, { remoteAddr: info.remoteAddr, cutOff, budget, stall, closing: closingAnswer });
    });
  const first = start(options.port);
  const port = first.addr.port;
  const serving = serveAgain(first, () => start(port), {
    onStop: (error) =>
      options.onNotice?.(`The receiver stopped accepting (${describeError(error)}); serving again.`),
  });
  return Promise.resolve({
    port,
    hostname: first.addr.hostname,
    close: () => serving.close(),
    finished: serving.finished,
  });
}
