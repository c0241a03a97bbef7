/**
 * The liveness probe `hooktap doctor` sends to a running `dev`:
 * `GET /.hooktap/probe` with the header `x-hooktap-probe: 1`. It is answered
 * before routing (never stored, never in the unmatched log), with who
 * answers, so doctor can tell hooktap from another program on the port.
 * @module
 */
import type { Handler } from "./handler.ts";

/** Path of the probe. */
export const PROBE_PATH = "/.hooktap/probe";
/** Header the probe carries (a sender's request to the same path without it is routed as usual). */
export const PROBE_HEADER = "x-hooktap-probe";

/** What the probe answers. */
export interface ProbeAnswer {
  hooktap: true;
  pid: number;
}

/** Wraps `handler` so the probe is answered first. */
export function withProbe(handler: Handler, pid: number = Deno.pid): Handler {
  const answer = JSON.stringify({ hooktap: true, pid } satisfies ProbeAnswer);
  return (request, info) => {
    if (
      request.method === "GET" && request.headers.has(PROBE_HEADER) &&
      new URL(request.url).pathname === PROBE_PATH
    ) {
      return Promise.resolve(new Response(answer, { headers: { "content-type": "application/json" } }));
    }
    return handler(request, info);
  };
}
