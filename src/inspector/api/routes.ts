/**
 * The JSON API under `/api/` (the page uses it; so can scripts):
 *
 * - `GET /api/info`: endpoints, whether re-signing is available
 * - `GET /api/events?endpoint=&method=&provider=&type=&verdict=&delivery=&since=&until=&q=&where=&header=&before=&limit=`
 *   (the filters of `hooktap logs`, read by ./query.ts, `q` being `--grep`; `delivery` is the inspector's own)
 * - `GET /api/events/:id`: the record, its delivery status and attempts
 * - `GET /api/events/:id/raw`: the exact body bytes (as a download)
 * - `GET /api/stream?<filters>`: Server-Sent Events, one `event` message per stored event
 * - `POST /api/events/:id/replay`: `{ to, method?, headers?, body?, bodyEncoding?, resign? }`
 * @module
 */
import { NetworkError, UsageError } from "../../errors.ts";
import { type CapturedEvent, decodeBody } from "../../event/record.ts";
import { EVENT_ID_PATTERN } from "../../event/id.ts";
import { findByIdPrefix } from "../../store/read/lookup.ts";
import { openStoreReader } from "../../store/read/reader.ts";
import type { StorePaths } from "../../store/paths.ts";
import { readHubState } from "../../hub/cursor_file.ts";
import { SECURITY_HEADERS } from "../guard.ts";
import type { LiveSource } from "../live.ts";
import { deliveryIndex } from "../delivery_index.ts";
import { eventDelivery } from "../../send/delivery_state.ts";
import { FilterError, filterFromQuery } from "./query.ts";
import { listPage } from "./list.ts";
import { liveStream } from "./stream.ts";
import {
  apiWording,
  parseReplayRequest,
  replayFromApi,
  ReplayRequestError,
  type Resigner,
} from "./replay.ts";

/** What the API serves. */
export interface ApiOptions {
  paths: StorePaths;
  /** Endpoint names from the config. */
  endpoints: string[];
  live?: LiveSource;
  resign?: Resigner;
  /** Closes live streams when the inspector stops. */
  signal: AbortSignal;
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { ...SECURITY_HEADERS, "content-type": "application/json; charset=utf-8" },
  });
}

const EVENT_ROUTE = new URLPattern({ pathname: "/api/events/:id{/:what}?" });

/** The API's request handler; `url` is the request's parsed URL. */
export function createApi(o: ApiOptions): (request: Request, url: URL) => Promise<Response> {
  const deliveries = deliveryIndex(o.paths);

  async function findEvent(id: string): Promise<CapturedEvent | undefined> {
    if (!EVENT_ID_PATTERN.test(id)) return undefined;
    const reader = await openStoreReader(o.paths);
    if (reader === null) return undefined;
    using _r = reader;
    const found = await findByIdPrefix(reader, { prefix: id, key: (x) => x }, { max: 1 });
    return found.event?.id === id ? found.event : undefined;
  }

  async function list(url: URL): Promise<Response> {
    const filter = filterFromQuery(url.searchParams);
    const before = url.searchParams.get("before");
    const limit = url.searchParams.get("limit");
    if (before !== null && !/^\d+$/.test(before)) return json(400, { error: "before must be a byte offset" });
    if (limit !== null && !/^\d+$/.test(limit)) return json(400, { error: "limit must be a number" });
    await deliveries.refresh();
    const reader = await openStoreReader(o.paths);
    if (reader === null) return json(200, { events: [], next: null, scanned: 0, size: 0 });
    using _r = reader;
    const page = await listPage(reader, deliveries, {
      filter,
      ...(before !== null ? { before: Number(before) } : {}),
      ...(limit !== null ? { limit: Number(limit) } : {}),
    });
    return json(200, page);
  }

  async function one(id: string, what: string | undefined, request: Request): Promise<Response> {
    const event = await findEvent(id);
    if (event === undefined) return json(404, { error: `No event ${id} in the store.` });
    if (what === undefined && request.method === "GET") {
      await deliveries.refresh();
      const attempts = await deliveries.attemptsOf(id);
      // One model (src/send/delivery_state.ts), over the attempts read now.
      const summary = eventDelivery(event, attempts);
      return json(200, {
        event,
        delivery: summary.state,
        attempts,
        ...(event.forward !== undefined ? { targets: summary.targets } : {}),
        ...(summary.others.length > 0 ? { others: summary.others } : {}),
      });
    }
    if (what === "raw" && request.method === "GET") {
      return new Response(decodeBody(event) as Uint8Array<ArrayBuffer>, {
        headers: {
          ...SECURITY_HEADERS,
          "content-type": "application/octet-stream",
          "content-disposition": `attachment; filename="${id}.body"`,
        },
      });
    }
    if (what === "replay" && request.method === "POST") {
      if (!/^application\/json\b/i.test(request.headers.get("content-type") ?? "")) {
        return json(415, { error: "Send the replay request as application/json." });
      }
      let input;
      try {
        input = parseReplayRequest(await request.json());
      } catch (error) {
        return json(400, { error: error instanceof SyntaxError ? "The body is not JSON." : String(error) });
      }
      try {
        return json(
          200,
          await replayFromApi(event, input, { paths: o.paths, ...(o.resign ? { resign: o.resign } : {}) }),
        );
      } catch (error) {
        if (error instanceof ReplayRequestError || error instanceof UsageError) {
          return json(400, { error: apiWording(error.message) });
        }
        if (error instanceof NetworkError) return json(502, { error: error.message });
        throw error;
      }
    }
    return json(405, { error: "Method not allowed." });
  }

  return async (request, url) => {
    try {
      if (url.pathname === "/api/info" && request.method === "GET") {
        return json(200, {
          endpoints: o.endpoints,
          resign: o.resign !== undefined,
          live: o.live !== undefined,
          hub: await readHubState(o.paths), // connected, waiting, last received (dev --hub), or null
        });
      }
      if (url.pathname === "/api/events" && request.method === "GET") return await list(url);
      if (url.pathname === "/api/stream" && request.method === "GET") {
        return liveStream(filterFromQuery(url.searchParams), { deliveries, live: o.live, signal: o.signal });
      }
      const m = EVENT_ROUTE.exec(url);
      if (m !== null) {
        const { id, what } = m.pathname.groups;
        if (what === undefined || what === "raw" || what === "replay") return await one(id!, what, request);
      }
      return json(404, { error: `No API route ${request.method} ${url.pathname}.` });
    } catch (error) {
      if (error instanceof FilterError) return json(400, { error: error.message });
      return json(500, {
        error: `The inspector hit an error: ${error instanceof Error ? error.message : error}`,
      });
    }
  };
}
