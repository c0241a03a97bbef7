/**
 * A route table's entries (method, `URLPattern` path, handler) and their
 * matching: a path no route knows gets the same 404 as a missing channel
 * (ids cannot be probed), a known path with another method a 405 with
 * `Allow`.
 * @module
 */
import type { RequestInfo } from "../../receiver/request.ts";
import type { HubContext } from "../context.ts";
import { closeAfter } from "../../receiver/closing.ts";
import { NO_CHANNEL, text } from "../respond.ts";

/** What a route gets besides the request and the context. */
export interface RouteParams {
  /** The path's named parts (`channel`, `rest`, …), as in the URL (percent-encoding kept). */
  groups: Record<string, string>;
  url: URL;
  info: RequestInfo | undefined;
}

/** A route's handler. */
export type RouteHandler = (request: Request, params: RouteParams, ctx: HubContext) => Promise<Response>;

/** One route. */
export interface Route {
  /** The method, or `"*"`: every method. */
  method: string;
  pattern: URLPattern;
  /** What the method does here, for the 405's text (`to create a channel`). */
  use: string;
  handler: RouteHandler;
}

/** A route: `method` on the path `pathname` (URLPattern syntax). */
export function route(method: string, pathname: string, use: string, handler: RouteHandler): Route {
  return { method, pattern: new URLPattern({ pathname }), use, handler };
}

/** The route for `method` on `pathname`, the methods the path takes otherwise, or nothing. */
export type RouteMatch =
  | { kind: "found"; route: Route; groups: Record<string, string> }
  | { kind: "method"; allowed: Route[] }
  | { kind: "none" };

/** Matches `method` on `pathname` against `routes` (the first matching entry wins). */
export function matchRoute(routes: readonly Route[], method: string, pathname: string): RouteMatch {
  const allowed: Route[] = [];
  for (const r of routes) {
    const found = r.pattern.exec({ pathname });
    if (found === null) continue;
    if (r.method === "*" || r.method === method) {
      const groups: Record<string, string> = {};
      for (const [k, v] of Object.entries(found.pathname.groups)) groups[k] = v ?? "";
      return { kind: "found", route: r, groups };
    }
    allowed.push(r);
  }
  return allowed.length > 0 ? { kind: "method", allowed } : { kind: "none" };
}

/** Answers `request` through `routes`: its route's answer, else a 405 with `Allow`, else the 404. */
export function dispatch(
  routes: readonly Route[],
  request: Request,
  info: RequestInfo | undefined,
  ctx: HubContext,
): Promise<Response> {
  const url = new URL(request.url);
  const match = matchRoute(routes, request.method, url.pathname);
  // Receiving (a route for every method) answers a hidden body itself, after the channel's 404.
  const receiving = match.kind === "found" && match.route.method === "*";
  if (!receiving && announcesHiddenBody(request)) return Promise.resolve(hiddenBody(request.method));
  if (match.kind === "found") return match.route.handler(request, { groups: match.groups, url, info }, ctx);
  if (match.kind === "method") {
    const allow = [...new Set(match.allowed.map((r) => r.method))];
    const uses = match.allowed.map((r) => `${r.method} ${r.use}`).join(", or ");
    return Promise.resolve(text(405, `Use ${uses}.`, { allow: allow.join(", ") }));
  }
  return Promise.resolve(text(404, NO_CHANNEL));
}

/** A GET or HEAD that announces a body: Deno.serve hides such a body (docs/hub.md). */
function announcesHiddenBody(request: Request): boolean {
  if (request.method !== "GET" && request.method !== "HEAD") return false;
  const length = request.headers.get("content-length");
  return request.headers.has("transfer-encoding") || (length !== null && Number(length) !== 0);
}

/** The API's 400 for a GET or HEAD with a body; the connection closes after it (the body may still come). */
function hiddenBody(method: string): Response {
  return closeAfter(text(
    400,
    `Bad request: a ${method} request to the hub takes no body (Deno.serve hides GET and HEAD bodies). ` +
      "Send it without one.",
    { connection: "close" },
  ));
}
