/**
 * The liveness probe `hooktap doctor` sends to a running `dev`:
 * `GET /.hooktap/probe` with the header `x-hooktap-probe: 1`. It is answered
 * before routing (never stored, never in the unmatched log), with who
 * answers, so doctor can tell hooktap from another program on the port:
 * a random per-run nonce that `dev` also keeps in `.hooktap/dev.lock`
 * (owner-only), never the pid (anyone on the tunnel can send the probe).
 * With `x-hooktap-probe: headers` the answer also holds the header list the
 * receiver would store for the probe itself (`dev`'s start-up check). With
 * `x-hooktap-probe: endpoints` and the run's nonce in `x-hooktap-run` (only
 * a reader of the owner-only `dev.lock` knows it) it also holds the endpoints
 * served now (`doctor` checks those, even when the config no longer loads).
 * @module
 */
import type { Handler } from "./handler.ts";
import { requestHeaders } from "./headers.ts";

/** Path of the probe. */
export const PROBE_PATH = "/.hooktap/probe";
/** Header the probe carries (a sender's request to the same path without it is routed as usual). */
export const PROBE_HEADER = "x-hooktap-probe";
/** Header with the run's nonce, which an `endpoints` probe must carry. */
export const PROBE_RUN_HEADER = "x-hooktap-run";

/** An endpoint as the probe reports it. */
export interface ProbeEndpoint {
  name: string;
  path: string;
  methods: string[];
}

/** What the probe answers. */
export interface ProbeAnswer {
  hooktap: true;
  /** The run's nonce, as in `.hooktap/dev.lock`. */
  run: string;
  /** The probe's own headers as the receiver reads them, when asked with `x-hooktap-probe: headers`. */
  headers?: [string, string][];
  /** The endpoints served now, when asked with `x-hooktap-probe: endpoints` and the run's nonce. */
  endpoints?: ProbeEndpoint[];
}

/** A new per-run nonce. */
export function newRunNonce(): string {
  return crypto.randomUUID();
}

function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/**
 * Wraps `handler` so the probe is answered first, with `run` (the nonce of this run) and, to a probe that
 * proves it knows `run`, the `endpoints` served now.
 */
export function withProbe(
  handler: Handler,
  run: string,
  endpoints?: () => readonly { name: string; path: string; methods: readonly string[] }[],
): Handler {
  const answer = JSON.stringify({ hooktap: true, run } satisfies ProbeAnswer);
  return (request, info) => {
    if (request.method === "GET" && new URL(request.url).pathname === PROBE_PATH) {
      // The header is looked up in the raw list, not with `request.headers`: on Deno.serve, a `Headers` lookup
      // replaces the raw list with the merged view, and a request without the header goes on to be stored.
      const headers = requestHeaders(request);
      const probe = headers.find(([name]) => name.toLowerCase() === PROBE_HEADER)?.[1];
      if (probe !== undefined) {
        const proven = headers.find(([name]) => name.toLowerCase() === PROBE_RUN_HEADER)?.[1];
        const body = probe === "headers"
          ? JSON.stringify({ hooktap: true, run, headers } satisfies ProbeAnswer)
          : probe === "endpoints" && endpoints !== undefined && proven !== undefined && sameText(proven, run)
          ? JSON.stringify(
            {
              hooktap: true,
              run,
              endpoints: endpoints().map((e) => ({ name: e.name, path: e.path, methods: [...e.methods] })),
            } satisfies ProbeAnswer,
          )
          : answer;
        return Promise.resolve(new Response(body, { headers: { "content-type": "application/json" } }));
      }
    }
    return handler(request, info);
  };
}
