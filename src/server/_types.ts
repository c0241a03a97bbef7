/**
 * What `listen` asks of a stack (src/server/deno_stack.ts, node_stack.ts).
 * @module
 */
import type { ResolvedServer } from "../config/server.ts";
import type { BodyBudget } from "../receiver/budget.ts";
import type { StallWatch } from "../receiver/stall.ts";

/** Options every stack takes. */
export interface StackOptions {
  hostname: string;
  port: number;
  /** Passed to the handler as `info.cutOff`. */
  cutOff: AbortSignal;
  /** Called with an error the handler threw; the request gets a 500 with `errorMessage`. */
  onError?: ((error: unknown) => void) | undefined;
  errorMessage: string;
  /** Passed to the handler as `info.budget`. */
  budget: BodyBudget;
  /** Passed to the handler as `info.stall`. */
  stall: StallWatch;
  /** Timeouts and the connection cap. */
  limits: ResolvedServer;
  /** Called with a problem the server survived (a refused connection, an accept error), for the log. */
  onNotice?: ((message: string) => void) | undefined;
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
