/**
 * The hub's request handler, web-standard: channels (admin API), receiving
 * at `/c/<id>/<path>`, and the client API (poll, ack, answers, status), as
 * a table of routes (src/hub/routes/table.ts) over one context of state
 * (src/hub/context.ts). Its store and clock come in as options;
 * src/hub/serve.ts and src/hub/deploy.ts give it a socket.
 * @module
 */
import type { IncomingRequest, RequestInfo } from "../receiver/request.ts";
import { createHubContext, type HubOptions } from "./context.ts";
import { dispatch } from "./routes/route.ts";
import { HUB_ROUTES } from "./routes/table.ts";

export type { HubOptions } from "./context.ts";
export { NO_CHANNEL } from "./respond.ts";
export { DEFAULT_CLIENT } from "./routes/guard.ts";

/** The hub's handler. */
export type HubHandler = ((request: Request, info?: RequestInfo) => Promise<Response>) & {
  /** Stops held polls (on shutdown). */
  close(): void;
};

/** Creates the hub's handler. */
export function createHubHandler(options: HubOptions): HubHandler {
  const ctx = createHubContext(options);
  const handler = (request: Request, info?: RequestInfo): Promise<Response> =>
    dispatch(HUB_ROUTES, request, info, ctx);
  return Object.assign(handler, { close: () => ctx.close() });
}

export type { IncomingRequest };
