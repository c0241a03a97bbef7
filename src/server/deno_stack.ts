/**
 * The Deno.serve stack: the fastest, but it hides GET and HEAD bodies (the
 * handler answers 501 when one is announced, never storing it as empty).
 * @module
 */
import type { Handler } from "../receiver/handler.ts";
import type { ServingStack, StackOptions } from "./_types.ts";

/** Serves `handler` with Deno.serve. Throws Deno's own error when the port cannot be bound. */
export function serveDeno(handler: Handler, options: StackOptions): Promise<ServingStack> {
  const { cutOff, budget, stall } = options;
  const server = Deno.serve({
    hostname: options.hostname,
    port: options.port,
    onListen: () => {},
    onError: (error) => {
      options.onError?.(error);
      return new Response(options.errorMessage, { status: 500 });
    },
  }, (request, info) => handler(request, { remoteAddr: info.remoteAddr, cutOff, budget, stall }));
  return Promise.resolve({
    port: server.addr.port,
    hostname: server.addr.hostname,
    close: () => server.shutdown(),
    finished: server.finished,
  });
}
