/**
 * What `listen` asks of a stack (src/server/deno_stack.ts, node_stack.ts).
 * @module
 */

/** Options every stack takes. */
export interface StackOptions {
  hostname: string;
  port: number;
  /** Passed to the handler as `info.cutOff`. */
  cutOff: AbortSignal;
  /** Called with an error the handler threw; the request gets a 500 with `errorMessage`. */
  onError?: ((error: unknown) => void) | undefined;
  errorMessage: string;
}

/** A bound stack. */
export interface ServingStack {
  readonly port: number;
  readonly hostname: string;
  /** Stops accepting and closes connections once their responses are sent. */
  close(): Promise<void>;
  /** Settles once the server has stopped. */
  readonly finished: Promise<void>;
}
