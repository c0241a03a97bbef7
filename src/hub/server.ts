/**
 * The hub's request handler, web-standard: channels (admin API), receiving
 * at `/c/<id>/<path>`, and the client API (poll, ack, answers, status).
 * Its store and clock come in as arguments; src/hub/serve.ts and
 * src/hub/deploy.ts give it a socket.
 * @module
 */
import { BodyTooLargeError, readBody } from "../receiver/body.ts";
import { requestHeaders } from "../receiver/headers.ts";
import type { IncomingRequest, RequestInfo } from "../receiver/request.ts";
import { HeadTooLargeError, type HubStore } from "./kv_store.ts";
import { bearer, CHANNEL_ID, hashToken, newChannelId, newToken, sameBytes, tokenMatches } from "./token.ts";
import type { WireAnswer, WireEvent, WirePoll, WireStatus } from "./wire.ts";

/** Options of {@linkcode createHubHandler}. */
export interface HubOptions {
  store: HubStore;
  /** Admin token; without one, `POST /api/channels` answers 403. */
  adminToken?: string | undefined;
  /** Base of channel URLs (`https://hub.example.com`); default: the request's origin. */
  publicUrl?: string | undefined;
  /**
   * Largest body stored.
   * @default 10 MiB
   */
  maxBodySize?: number;
  /**
   * Longest wait for a connected client's answer before the sender gets the hub's 200.
   * @default 5000
   */
  answerTimeoutMs?: number;
  /**
   * Longest a poll is held open waiting for an event.
   * @default 25000
   */
  pollWaitMs?: number;
}

/** The hub's handler. */
export type HubHandler = ((request: Request, info?: RequestInfo) => Promise<Response>) & {
  /** Stops held polls (on shutdown). */
  close(): void;
};

/** Body of the 404 for a missing or unknown channel: the same for both, so ids cannot be probed. */
export const NO_CHANNEL = "No channel here.";
/** The client id used until several clients per channel exist (issue 28). */
export const DEFAULT_CLIENT = "default";
const CONNECTED_MS = 3000;

function text(status: number, body: string, headers: Record<string, string> = {}): Response {
  return new Response(body + "\n", {
    status,
    headers: { "content-type": "text/plain; charset=utf-8", ...headers },
  });
}

function json(value: unknown, status = 200): Response {
  return new Response(JSON.stringify(value), { status, headers: { "content-type": "application/json" } });
}

/** Creates the hub's handler. */
export function createHubHandler(options: HubOptions): HubHandler {
  const { store } = options;
  const maxBodySize = options.maxBodySize ?? 10 * 1024 * 1024;
  const answerTimeoutMs = options.answerTimeoutMs ?? 5000;
  const pollWaitMs = options.pollWaitMs ?? 25_000;
  const adminHash = options.adminToken === undefined ? undefined : hashToken(options.adminToken);
  const polls = new Map<string, { active: number; lastSeen: number }>();
  const waiters = new Map<string, (answer: WireAnswer) => void>();
  const stopping = new AbortController();

  const connected = (channel: string) => {
    const p = polls.get(channel);
    return p !== undefined && (p.active > 0 || Date.now() - p.lastSeen < CONNECTED_MS);
  };

  async function authorized(request: Request, channel: string): Promise<Response | undefined> {
    const token = bearer(request.headers);
    const record = CHANNEL_ID.test(channel) ? await store.channel(channel) : null;
    // A token is checked against a hash either way, so a missing channel costs the same.
    const ok = await tokenMatches(token ?? "", record?.tokenHash ?? new Uint8Array(32));
    if (record === null || token === undefined || !ok) {
      return text(
        401,
        "Token refused: this token does not open this channel. Check --hub-token or HOOKTAP_HUB_TOKEN.",
      );
    }
    return undefined;
  }

  async function receive(request: Request, info: RequestInfo | undefined, channel: string, rest: string) {
    const record = CHANNEL_ID.test(channel) ? await store.channel(channel) : null;
    if (record === null) return text(404, NO_CHANNEL);
    const url = new URL(request.url);
    const headers = requestHeaders(request);
    let body: Uint8Array;
    try {
      body = await readBody(request, maxBodySize, request.headers.get("content-length"), {
        chunked: request.headers.has("transfer-encoding"),
      });
    } catch (error) {
      if (error instanceof BodyTooLargeError) {
        return text(
          413,
          `Request body too large: the hub stores at most ${maxBodySize} bytes. Nothing was stored.`,
          {
            connection: "close",
          },
        );
      }
      return text(400, "Bad request: the body could not be read. Nothing was stored.");
    }
    const addr = info?.remoteAddr;
    let seq: number;
    try {
      seq = await store.append(channel, {
        receivedAt: new Date().toISOString(),
        method: request.method,
        path: rest === "" ? "/" : rest,
        query: url.search.slice(1),
        headers: headers.map(([k, v]) => [k, v]),
        remoteAddr: addr?.transport === "tcp" ? addr.hostname : "",
        size: body.length,
        body,
      });
    } catch (error) {
      if (error instanceof HeadTooLargeError) {
        return text(431, "Request headers too large. Nothing was stored.");
      }
      return text(503, "The hub could not store this request. Nothing was stored; retry later.", {
        "retry-after": "5",
      });
    }
    if (connected(channel)) {
      const key = `${channel}:${seq}`;
      const answer = await new Promise<WireAnswer | undefined>((resolve) => {
        const timer = setTimeout(() => resolve(undefined), answerTimeoutMs);
        waiters.set(key, (a) => {
          clearTimeout(timer);
          resolve(a);
        });
      });
      waiters.delete(key);
      if (answer !== undefined) {
        return new Response(answer.body === "" ? null : Uint8Array.fromBase64(answer.body), {
          status: answer.status,
          headers: answer.headers,
        });
      }
    }
    return json({ ok: true, hub: seq });
  }

  async function poll(request: Request, channel: string, params: URLSearchParams): Promise<Response> {
    const after = Number(params.get("after") ?? "0");
    const wait = Math.min(Number(params.get("wait") ?? pollWaitMs), pollWaitMs);
    const limit = Math.max(1, Math.min(Number(params.get("limit") ?? "1000"), 1000));
    if (!Number.isSafeInteger(after) || after < 0 || !Number.isFinite(wait)) {
      return text(400, "after must be a sequence number and wait milliseconds.");
    }
    let p = polls.get(channel);
    if (p === undefined) polls.set(channel, p = { active: 0, lastSeen: 0 });
    p.active++;
    try {
      let events = await store.read(channel, after, { limit });
      if (events.length === 0 && wait > 0) {
        const timeout = AbortSignal.any([AbortSignal.timeout(wait), stopping.signal, request.signal]);
        // Another isolate may commit: look again every second as well.
        while (events.length === 0 && !timeout.aborted) {
          await store.changed(channel, after, AbortSignal.any([timeout, AbortSignal.timeout(1000)]));
          events = await store.read(channel, after, { limit });
        }
      }
      const wire: WireEvent[] = [];
      for (const e of events) {
        wire.push({
          seq: e.seq,
          receivedAt: e.receivedAt,
          method: e.method,
          path: e.path,
          query: e.query,
          headers: e.headers,
          remoteAddr: e.remoteAddr,
          body: (await store.body(channel, e)).toBase64(),
          answer: waiters.has(`${channel}:${e.seq}`),
        });
      }
      const last = wire.at(-1)?.seq ?? after;
      return json({ head: Math.max(last, await store.head(channel)), events: wire } satisfies WirePoll);
    } finally {
      p.active--;
      p.lastSeen = Date.now();
    }
  }

  async function api(request: Request, parts: string[], url: URL): Promise<Response> {
    if (parts.length === 0) {
      if (request.method !== "POST") return text(405, "Use POST to create a channel.", { allow: "POST" });
      if (adminHash === undefined) {
        return text(
          403,
          "The admin API is off: start the hub with --admin-token or HOOKTAP_HUB_ADMIN_TOKEN.",
        );
      }
      const given = bearer(request.headers);
      if (given === undefined || !sameBytes(await hashToken(given), await adminHash)) {
        return text(
          401,
          "Admin token refused. Pass the hub's admin token (--admin-token or HOOKTAP_HUB_ADMIN_TOKEN).",
        );
      }
      const id = newChannelId();
      const token = newToken();
      await store.createChannel(id, await hashToken(token));
      const base = (options.publicUrl ?? url.origin).replace(/\/+$/, "");
      return json({ url: `${base}/c/${id}`, token, id }, 201);
    }
    const [channel, action, arg] = parts as [string, string | undefined, string | undefined];
    const refused = await authorized(request, channel);
    if (refused) return refused;
    if (action === undefined && request.method === "GET") {
      const head = await store.head(channel);
      const acked = (await store.cursor(channel, DEFAULT_CLIENT))?.seq ?? 0;
      const last = head === 0 ? [] : await store.read(channel, head - 1, { limit: 1 });
      return json(
        {
          head,
          acked,
          waiting: Math.max(0, head - acked),
          connected: connected(channel),
          lastReceivedAt: last[0]?.receivedAt ?? null,
        } satisfies WireStatus,
      );
    }
    if (action === "events" && request.method === "GET") return poll(request, channel, url.searchParams);
    if (action === "ack" && request.method === "POST") {
      const body = await request.json().catch(() => null) as { seq?: unknown } | null;
      if (!Number.isSafeInteger(body?.seq)) return text(400, 'Send {"seq": <number>}.');
      await store.ack(channel, DEFAULT_CLIENT, body!.seq as number);
      return json({ ok: true });
    }
    if (action === "answers" && request.method === "POST" && arg !== undefined) {
      const answer = await request.json().catch(() => null) as WireAnswer | null;
      if (
        answer === null || !Number.isInteger(answer.status) || answer.status < 200 || answer.status > 599 ||
        !Array.isArray(answer.headers) || typeof answer.body !== "string"
      ) return text(400, "Send {status, headers, body (base64)}.");
      waiters.get(`${channel}:${arg}`)?.(answer);
      return json({ ok: true });
    }
    return text(404, "Unknown hub API route.");
  }

  const handler = (request: Request, info?: RequestInfo): Promise<Response> => {
    const url = new URL(request.url);
    const path = url.pathname;
    if (path.startsWith("/c/")) {
      const slash = path.indexOf("/", 3);
      const channel = slash === -1 ? path.slice(3) : path.slice(3, slash);
      return receive(request, info, channel, slash === -1 ? "" : path.slice(slash));
    }
    if (path === "/api/channels" || path.startsWith("/api/channels/")) {
      return api(request, path.slice("/api/channels".length).split("/").filter((s) => s !== ""), url);
    }
    if (path === "/" && request.method === "GET") return Promise.resolve(text(200, "hooktap hub"));
    return Promise.resolve(text(404, NO_CHANNEL));
  };
  return Object.assign(handler, { close: () => stopping.abort() });
}

export type { IncomingRequest };
