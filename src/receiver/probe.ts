/**
 * The liveness probe `hooktap doctor` sends to a running `dev`:
 * `GET /.hooktap/probe` with the header `x-hooktap-probe: 1`. It is answered
 * before routing (never stored, never in the unmatched log), with who
 * answers, so doctor can tell hooktap from another program on the port:
 * a random per-run nonce that `dev` also keeps in `.hooktap/dev.lock`
 * (owner-only), never the pid (anyone on the tunnel can send the probe).
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
  /** The run's nonce, as in `.hooktap/dev.lock`. */
  run: string;
}

/** A new per-run nonce. */
export function newRunNonce(): string {
  return crypto.randomUUID();
}

/** Wraps `handler` so the probe is answered first, with `run` (the nonce of this run). */
export function withProbe(handler: Handler, run: string): Handler {
  const answer = JSON.stringify({ hooktap: true, run } satisfies ProbeAnswer);
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
