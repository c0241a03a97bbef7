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
import { checkParams, FILTER_PARAMS, FilterError, filterFromQuery } from "./query.ts";
import { type ListOptions, listPage } from "./list.ts";
import { unknownEndpoint } from "./endpoint_name.ts";
import type { EventFilter } from "../../query/filter.ts";
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

/** Events per page at most (`limit`). */
const MAX_LIMIT = 1000;

function _pageOptions(filter: EventFilter, before: string | null, limit: string | null): ListOptions {
  return {
    filter,
    ...(before !== null ? { before: Number(before) } : {}),
    ...(limit !== null ? { limit: Number(limit) } : {}),
  };
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
    checkParams(url.searchParams, [...FILTER_PARAMS, "before", "limit"]);
    const filter = filterFromQuery(url.searchParams);
    const before = url.searchParams.get("before");
    const limit = url.searchParams.get("limit");
    if (before !== null && !/^\d+$/.test(before)) {
      return json(400, {
        error: `before must be a byte offset (the \`next\` of the page before); got "${before}".`,
      });
    }
    if (limit !== null && !(/^\d+$/.test(limit) && Number(limit) >= 1 && Number(limit) <= MAX_LIMIT)) {
      return json(400, {
        error: `limit must be a whole number from 1 to ${MAX_LIMIT} (events per page); got "${limit}".`,
      });
    }
    await deliveries.refresh();
    const reader = await openStoreReader(o.paths);
    using _r = reader ?? undefined;
    const page = reader === null
      ? { events: [], next: null, scanned: 0, size: 0 }
      : await listPage(reader, deliveries, _pageOptions(filter, before, limit));
    if (filter.endpoint !== undefined && before === null && page.events.length === 0) {
      // An empty first page for an endpoint that does not exist is a typo: refused, as `logs` does.
      const problem = await unknownEndpoint(filter.endpoint, o.endpoints, reader);
      if (problem !== undefined) return json(400, { error: problem });
    }
    return json(200, page);
  }

  async function stream(url: URL): Promise<Response> {
    checkParams(url.searchParams, FILTER_PARAMS);
    const filter = filterFromQuery(url.searchParams);
    if (filter.endpoint !== undefined) {
      const reader = await openStoreReader(o.paths);
      using _r = reader ?? undefined;
      const problem = await unknownEndpoint(filter.endpoint, o.endpoints, reader);
      if (problem !== undefined) return json(400, { error: problem });
    }
    return liveStream(filter, { deliveries, live: o.live, signal: o.signal });
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
        // The message alone: a class name ("ReplayRequestError: ...") means nothing to a script.
        if (error instanceof SyntaxError) return json(400, { error: "The body is not JSON." });
        if (error instanceof ReplayRequestError) return json(400, { error: error.message });
        throw error;
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
        checkParams(url.searchParams, []);
        return json(200, {
          endpoints: o.endpoints,
          resign: o.resign !== undefined,
          live: o.live !== undefined,
          hub: await readHubState(o.paths), // connected, waiting, last received (dev --hub), or null
        });
      }
      if (url.pathname === "/api/events" && request.method === "GET") return await list(url);
      if (url.pathname === "/api/stream" && request.method === "GET") {
        return await stream(url);
      }
      const m = EVENT_ROUTE.exec(url);
      if (m !== null) {
        const { id, what } = m.pathname.groups;
        if (what === undefined || what === "raw" || what === "replay") {
          checkParams(url.searchParams, []); // one event's routes take no parameters
          return await one(id!, what, request);
        }
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
