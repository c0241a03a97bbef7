/**
 * The liveness probe `hooktap doctor` sends to a running `dev`:
 * `GET /.hooktap/probe` with the header `x-hooktap-probe: 1`. It is answered
 * before routing (never stored, never in the unmatched log), with who
 * answers, so doctor can tell hooktap from another program on the port:
 * a random per-run nonce that `dev` also keeps in `.hooktap/dev.lock`
 * (owner-only), never the pid (anyone on the tunnel can send the probe).
 * With `x-hooktap-probe: headers` the answer also holds the header list the
 * receiver would store for the probe itself (`dev`'s start-up check).
 * @module
 */
import type { Handler } from "./handler.ts";
import { requestHeaders } from "./headers.ts";

/** Path of the probe. */
export const PROBE_PATH = "/.hooktap/probe";
/** Header the probe carries (a sender's request to the same path without it is routed as usual). */
export const PROBE_HEADER = "x-hooktap-probe";

/** What the probe answers. */
export interface ProbeAnswer {
  hooktap: true;
  /** The run's nonce, as in `.hooktap/dev.lock`. */
  run: string;
  /** The probe's own headers as the receiver reads them, when asked with `x-hooktap-probe: headers`. */
  headers?: [string, string][];
}

/** A new per-run nonce. */
export function newRunNonce(): string {
  return crypto.randomUUID();
}

/** Wraps `handler` so the probe is answered first, with `run` (the nonce of this run). */
export function withProbe(handler: Handler, run: string): Handler {
  const answer = JSON.stringify({ hooktap: true, run } satisfies ProbeAnswer);
  return (request, info) => {
    if (request.method === "GET" && new URL(request.url).pathname === PROBE_PATH) {
      // The header is looked up in the raw list, not with `request.headers`: on Deno.serve, a `Headers` lookup
      // replaces the raw list with the merged view, and a request without the header goes on to be stored.
      const headers = requestHeaders(request);
      const probe = headers.find(([name]) => name.toLowerCase() === PROBE_HEADER)?.[1];
      if (probe !== undefined) {
        const body = probe === "headers"
          ? JSON.stringify({ hooktap: true, run, headers } satisfies ProbeAnswer)
          : answer;
        return Promise.resolve(new Response(body, { headers: { "content-type": "application/json" } }));
      }
    }
    return handler(request, info);
  };
}
