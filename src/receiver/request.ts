/**
 * What the receiver reads from a request: a web `Request` has all of it;
 * the node:http listener (src/server/node_request.ts) builds the same shape
 * from a request that a `Request` cannot hold (a GET or HEAD with a body).
 * @module
 */
import type { HubMark } from "../event/record.ts";
import type { BodyBudget } from "./budget.ts";
import type { StallWatch } from "./stall.ts";

/** A request as the handler reads it. */
export interface IncomingRequest {
  /** HTTP method. */
  readonly method: string;
  /** Absolute URL; only its path and query are used. */
  readonly url: string;
  /** The headers. */
  readonly headers: Headers;
  /** `null` when the request has no body (or the server cannot read it). */
  readonly body: ReadableStream<Uint8Array> | null;
  /** Reads the whole body. */
  arrayBuffer(): Promise<ArrayBuffer>;
  /** The headers as received, in order, repeats kept, when the server gives them. */
  readonly rawHeaders?: [string, string][];
  /** Aborted when the client goes away (a web `Request` has it). */
  readonly signal?: AbortSignal;
}

/** Extra facts the listener passes along with a request. */
export interface RequestInfo {
  /** The client's address. */
  remoteAddr: Deno.Addr;
  /**
   * Aborted when shutdown stops waiting: a body still uploading is cut off
   * and the request answered a retryable 503.
   */
  cutOff?: AbortSignal;
  /** The request came through a hub (`hooktap dev --hub`): marked in the record (v2). */
  hub?: HubMark;
  /** The bound on the bytes of all bodies in flight (the listener's). */
  budget?: BodyBudget;
  /** The body-inactivity watch (the listener's). */
  stall?: StallWatch;
  /**
   * How this listener sends an answer given before the body's end, after which it must close the connection
   * (Deno.serve's: ./closing.ts `closingAnswer`); without it the answer is returned as it is.
   */
  closing?: (response: Response) => Promise<Response>;
}
