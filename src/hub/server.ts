/**
 * The hub's request handler, web-standard: channels (admin API), receiving
 * at `/c/<id>/<path>`, and the client API (poll, ack, answers, status).
 * Its store and clock come in as arguments; src/hub/serve.ts and
 * src/hub/deploy.ts give it a socket.
 * @module
 */
import { BodyTooLargeError, readBody } from "../receiver/body.ts";
import { BodyBudget, BodyBudgetError } from "../receiver/budget.ts";
import { BodyStalledError, BodyTrailerError, StallWatch } from "../receiver/stall.ts";
import { requestHeaders } from "../receiver/headers.ts";
import type { IncomingRequest, RequestInfo } from "../receiver/request.ts";
import {
  ChannelFullError,
  type ChannelRecord,
  HeadTooLargeError,
  type HubStore,
  type StoredEvent,
} from "./kv_store.ts";
import { HubBudgetError, type HubBudgets, KeyedBudget, RequestBudget } from "./budgets.ts";
import { createRateLimiter, DEFAULT_LIMITS, type HubLimits } from "./limits.ts";
import {
  ackClient,
  channelCount,
  CLIENT_NAME,
  clientInfos,
  deleteChannel,
  lowMark,
  noteRefused,
  refused,
  removeClient,
  storedBytes,
  touchClient,
  trimChannel,
  usage,
} from "./team.ts";
import { bearer, CHANNEL_ID, hashToken, newChannelId, newToken, sameBytes, tokenMatches } from "./token.ts";
import type { WireAnswer, WireClients, WireEvent, WirePoll, WireStatus } from "./wire.ts";

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
  /** The limits (issue 28); each one missing takes its default ({@linkcode DEFAULT_LIMITS}). */
  limits?: Partial<HubLimits>;
  /** @default Date.now */
  now?: () => number;
  /**
   * Longest a body may go without a byte arriving (408 after).
   * @default 30000
   */
  bodyTimeoutMs?: number;
  /**
   * Bytes of all bodies being received at once (503 with Retry-After above; at least the body limit).
   * Overrides `limits.maxBytesInFlight` (kept for callers from before the per-channel and per-address bounds).
   * @default 128 MiB
   */
  maxBodyBytesInFlight?: number;
}

/** The hub's handler. */
export type HubHandler = ((request: Request, info?: RequestInfo) => Promise<Response>) & {
  /** Stops held polls (on shutdown). */
  close(): void;
};

/** Body of the 404 for a missing or unknown channel: the same for both, so ids cannot be probed. */
export const NO_CHANNEL = "No channel here.";
/** The client name of a client that gives none (a client from before issue 28). */
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
  const { kv } = store;
  const limits: HubLimits = { ...DEFAULT_LIMITS, ...options.limits };
  if (options.limits?.maxBodySize === undefined && options.maxBodySize !== undefined) {
    limits.maxBodySize = options.maxBodySize;
  }
  const maxBodySize = limits.maxBodySize;
  const now = options.now ?? Date.now;
  const bodyTimeoutMs = options.bodyTimeoutMs ?? 30_000;
  // Every bound at least the body limit: a body of the largest size stored can always be received alone.
  const budgets: HubBudgets = {
    hub: new BodyBudget(Math.max(options.maxBodyBytesInFlight ?? limits.maxBytesInFlight, maxBodySize)),
    channel: new KeyedBudget(Math.max(limits.maxBytesInFlightPerChannel, maxBodySize)),
    address: new KeyedBudget(Math.max(limits.maxBytesInFlightPerAddress, maxBodySize)),
  };
  /** Bytes reserved per channel by events being stored now (the storage cap holds under concurrency). */
  const reserved = new Map<string, number>();
  const stall = new StallWatch(bodyTimeoutMs);
  const rate = createRateLimiter(limits.ratePerMinute, now);
  /** Polls held open per channel (one token per channel: connections per token). */
  const open = new Map<string, Set<AbortController>>();
  /** Bytes known per channel: read from KV at most every second, plus what this process appended. */
  const used = new Map<string, { bytes: number; until: number }>();
  const trimmedAt = new Map<string, number>();
  const seen = new Set<string>();
  const answerTimeoutMs = options.answerTimeoutMs ?? limits.answerTimeoutMs;
  const pollWaitMs = options.pollWaitMs ?? 25_000;
  const adminHash = options.adminToken === undefined ? undefined : hashToken(options.adminToken);
  const polls = new Map<string, { active: number; lastSeen: number }>();
  const waiters = new Map<string, (answer: WireAnswer) => void>();
  const stopping = new AbortController();

  /** The channel's poll record, marked as seen now (created on a client's first call). */
  const seenNow = (channel: string) => {
    let p = polls.get(channel);
    if (p === undefined) polls.set(channel, p = { active: 0, lastSeen: 0 });
    p.lastSeen = Date.now();
    return p;
  };
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
        "Token refused: this token does not open this channel (wrong, rotated or revoked). " +
          "Check HOOKTAP_HUB_TOKEN or .hooktap/hub-token.",
      );
    }
    return undefined;
  }

  /** The admin token's check: a response when refused. */
  async function admin(request: Request): Promise<Response | undefined> {
    if (adminHash === undefined) {
      return text(403, "The admin API is off: start the hub with HOOKTAP_HUB_ADMIN_TOKEN set.");
    }
    const given = bearer(request.headers);
    if (given === undefined || !sameBytes(await hashToken(given), await adminHash)) {
      return text(
        401,
        "Admin token refused. Pass the hub's admin token (HOOKTAP_HUB_ADMIN_TOKEN).",
      );
    }
    return undefined;
  }

  /** Ends every poll held on `channel` (its token changed or it was deleted): each answers anew. */
  function cut(channel: string): void {
    store.forget(channel);
    for (const c of open.get(channel) ?? []) c.abort();
    polls.delete(channel); // no longer "connected": senders are not held for an answer
  }

  /** Drops what may go (acked by every client, or past retention); at most once a second unless forced. */
  async function trim(channel: string, force = false): Promise<void> {
    const t = performance.now(); // throttled in real time; retention is judged by the (injectable) clock
    if (!force && t - (trimmedAt.get(channel) ?? -Infinity) < 1000) return;
    trimmedAt.set(channel, t);
    try {
      const result = await trimChannel(store, channel, { now: now(), retentionMs: limits.retentionMs });
      const u = used.get(channel);
      if (u !== undefined) u.bytes -= result.bytes;
    } catch { /* a busy store: the next trim tries again */ }
  }

  async function bytesUsed(channel: string, exact: boolean): Promise<number> {
    const known = used.get(channel);
    if (!exact && known !== undefined && known.until > performance.now()) return known.bytes;
    const bytes = await usage(kv, channel);
    used.set(channel, { bytes, until: performance.now() + 1000 });
    return bytes;
  }

  const sweep = setInterval(() => {
    for (const channel of seen) void trim(channel);
    seen.clear();
  }, 60_000);
  Deno.unrefTimer(sweep);

  function clientOf(params: URLSearchParams): string | undefined {
    const name = params.get("client") ?? DEFAULT_CLIENT;
    return CLIENT_NAME.test(name) ? name : undefined;
  }

  async function receive(request: Request, info: RequestInfo | undefined, channel: string, rest: string) {
    const record = CHANNEL_ID.test(channel) ? await store.channel(channel) : null;
    if (record === null) return text(404, NO_CHANNEL);
    const retry = rate.take(channel);
    if (retry !== undefined) {
      await request.body?.cancel().catch(() => {});
      return text(
        429,
        `Too many requests to this channel: it accepts ${limits.ratePerMinute} a minute (hub serve --rate-limit). ` +
          `Nothing was stored; retry after ${retry} s.`,
        { "retry-after": String(retry), connection: "close" },
      );
    }
    seen.add(channel);
    const url = new URL(request.url);
    const headers = requestHeaders(request);
    let body: Uint8Array;
    const addr = info?.remoteAddr;
    const budget = new RequestBudget(budgets, channel, addr?.transport === "tcp" ? addr.hostname : "");
    try {
      // dev's reader: every body in flight is charged to its channel's, its address's and the hub's byte
      // budget, and a body that stops arriving is cut off.
      body = await readBody(request, maxBodySize, request.headers.get("content-length"), {
        chunked: request.headers.has("transfer-encoding"),
        budget,
        stall,
      });
    } catch (error) {
      if (error instanceof BodyTrailerError) {
        return text(431, "Request header fields too large: bytes after the last chunk passed the bound.", {
          connection: "close",
        });
      }
      if (error instanceof BodyStalledError) {
        return text(408, `No body bytes arrived for ${bodyTimeoutMs / 1000} s. Nothing was stored.`, {
          connection: "close",
        });
      }
      if (error instanceof BodyBudgetError) {
        const who = error instanceof HubBudgetError && error.scope === "channel"
          ? "this channel"
          : error instanceof HubBudgetError && error.scope === "address"
          ? "your address"
          : "the hub";
        return text(
          503,
          `The hub is receiving too many bodies at once for ${who}. Nothing was stored; retry shortly.`,
          { "retry-after": "2", connection: "close" },
        );
      }
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
    try {
      return await keep(channel, request, info, url, rest, headers, body);
    } finally {
      budget.release(body.length);
    }
  }

  /** Stores a received request (within the channel's storage) and answers the sender. */
  async function keep(
    channel: string,
    request: Request,
    info: RequestInfo | undefined,
    url: URL,
    rest: string,
    headers: [string, string][],
    body: Uint8Array,
  ): Promise<Response> {
    const addr = info?.remoteAddr;
    const event = {
      receivedAt: new Date(now()).toISOString(),
      method: request.method,
      path: rest === "" ? "/" : rest,
      query: url.search.slice(1),
      headers,
      remoteAddr: addr?.transport === "tcp" ? addr.hostname : "",
      size: body.length,
      body,
    };
    const cost = storedBytes(event); // what the store adds to the channel's usage
    const max = limits.maxChannelBytes;
    const full = async () => {
      await noteRefused(kv, channel, now()).catch(() => {});
      return text(
        507,
        `This channel's storage is full (${max} bytes, hub serve --max-channel-bytes) with ` +
          "events a client has not acknowledged yet. Nothing was stored; retry later.",
        { "retry-after": "60" },
      );
    };
    // Checked and reserved with no await in between: concurrent senders in this process cannot all pass the
    // same check. The commit checks the cap again against KV (other hub processes on the same KV).
    const reservedNow = () => reserved.get(channel) ?? 0;
    if ((await bytesUsed(channel, false)) + reservedNow() + cost > max) {
      // Full: drop what every client acknowledged or what passed retention, then look again.
      await trim(channel, true);
      if ((await bytesUsed(channel, true)) + reservedNow() + cost > max) return await full();
    }
    reserved.set(channel, reservedNow() + cost);
    let seq: number;
    try {
      seq = await store.append(channel, event, { maxChannelBytes: max });
      const u = used.get(channel);
      if (u !== undefined) u.bytes += cost;
    } catch (error) {
      if (error instanceof ChannelFullError) return await full();
      if (error instanceof HeadTooLargeError) {
        return text(431, "Request headers too large. Nothing was stored.");
      }
      return text(503, "The hub could not store this request. Nothing was stored; retry later.", {
        "retry-after": "5",
      });
    } finally {
      const left = reservedNow() - cost;
      if (left <= 0) reserved.delete(channel);
      else reserved.set(channel, left);
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

  /** Registers the poll's client and counts the connection: a response when refused. */
  async function enter(
    channel: string,
    client: string,
    control: AbortController,
  ): Promise<Response | undefined> {
    let set = open.get(channel);
    if (set === undefined) open.set(channel, set = new Set());
    if (set.size >= limits.maxConnections) {
      return text(
        429,
        `Too many connections with this channel's token: at most ${limits.maxConnections} at once ` +
          "(hub serve --max-connections). Stop another dev on this channel.",
        { "retry-after": "5" },
      );
    }
    const touched = await touchClient(kv, channel, client, { now: now(), maxClients: limits.maxClients });
    if (touched === "full") {
      return text(
        403,
        `This channel has ${limits.maxClients} clients already (hub serve --max-clients). ` +
          "Remove one with `hooktap hub clients rm NAME`.",
      );
    }
    set.add(control);
    return undefined;
  }

  async function poll(request: Request, channel: string, params: URLSearchParams): Promise<Response> {
    const after = Number(params.get("after") ?? "0");
    const wait = Math.min(Number(params.get("wait") ?? pollWaitMs), pollWaitMs);
    const limit = Math.max(1, Math.min(Number(params.get("limit") ?? "1000"), 1000));
    const client = clientOf(params);
    if (!Number.isSafeInteger(after) || after < 0 || !Number.isFinite(wait)) {
      return text(400, "after must be a sequence number and wait milliseconds.");
    }
    if (client === undefined) {
      return text(400, "client must be a name of letters, digits, . _ @ - (at most 64).");
    }
    const control = new AbortController();
    const refusedNow = await enter(channel, client, control);
    if (refusedNow) return refusedNow;
    const given = await hashToken(bearer(request.headers) ?? "");
    const p = seenNow(channel);
    p.active++;
    const leave = () => {
      p.active--;
      p.lastSeen = Date.now();
      open.get(channel)?.delete(control);
    };
    let held = false;
    try {
      const events = await store.read(channel, after, { limit });
      if (events.length > 0 || wait <= 0) return json(await batch(channel, after, events));
      // A long wait: the 200 goes out now and its body once events come or the wait ends. The client going
      // away cancels the body, which ends the wait and frees its connection slot. Never `request.signal`:
      // Deno.serve prints a notice into the hub's log for a request whose signal was read.
      held = true;
      const encoder = new TextEncoder();
      let sink: ReadableStreamDefaultController<Uint8Array> | undefined;
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          sink = controller;
        },
        cancel() {
          control.abort();
        },
      });
      void (async () => {
        let answer: WirePoll;
        try {
          answer = await hold(channel, after, limit, wait, given, control.signal);
        } catch {
          answer = {
            head: after,
            events: [],
            ended: { status: 503, message: "The hub's store failed; retry." },
          };
        } finally {
          leave();
        }
        try {
          sink!.enqueue(encoder.encode(JSON.stringify(answer)));
          sink!.close();
        } catch { /* the client went away */ }
      })();
      return new Response(body, { headers: { "content-type": "application/json" } });
    } finally {
      if (!held) leave();
    }
  }

  /**
   * Waits up to `wait` ms for events after `after`; a token rotated or revoked, or the channel deleted,
   * meanwhile ends the wait with `ended` (the 200 is already sent).
   */
  async function hold(
    channel: string,
    after: number,
    limit: number,
    wait: number,
    given: Uint8Array,
    gone: AbortSignal,
  ): Promise<WirePoll> {
    const timeout = AbortSignal.any([AbortSignal.timeout(wait), stopping.signal, gone]);
    let events: StoredEvent[] = [];
    // Another isolate may commit: look again every second as well.
    while (events.length === 0 && !timeout.aborted) {
      await store.changed(channel, after, AbortSignal.any([timeout, AbortSignal.timeout(1000)]));
      // The token is checked again each time: a rotated or revoked one is cut off on a held poll too.
      const fresh = (await kv.get<ChannelRecord>(["hub", "channel", channel])).value;
      if (fresh === null) return { head: after, events: [], ended: { status: 404, message: NO_CHANNEL } };
      if (!sameBytes(fresh.tokenHash, given)) {
        return {
          head: after,
          events: [],
          ended: { status: 401, message: "Token refused: this channel's token was rotated or revoked." },
        };
      }
      if (gone.aborted) break;
      events = await store.read(channel, after, { limit });
    }
    return await batch(channel, after, events);
  }

  /** The poll's answer for `events`. */
  async function batch(channel: string, after: number, events: StoredEvent[]): Promise<WirePoll> {
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
    const low = await lowMark(kv, channel);
    const full = await refused(kv, channel);
    return {
      head: Math.max(last, await store.head(channel)),
      events: wire,
      ...(low.seq > after ? { low: low.seq, lowAt: low.at } : {}),
      ...(full ? { refused: full } : {}),
    };
  }

  async function api(request: Request, parts: string[], url: URL): Promise<Response> {
    if (parts.length === 0) {
      // No endpoint lists channels: GET here is refused like any other method but POST.
      if (request.method !== "POST") return text(405, "Use POST to create a channel.", { allow: "POST" });
      const notAdmin = await admin(request);
      if (notAdmin) return notAdmin;
      if (await channelCount(kv) >= limits.maxChannels) {
        return text(
          403,
          `The hub holds ${limits.maxChannels} channels already (hub serve --max-channels). ` +
            "Delete one with `hooktap hub channel rm ID`.",
        );
      }
      const id = newChannelId();
      const token = newToken();
      await store.createChannel(id, await hashToken(token));
      const base = (options.publicUrl ?? url.origin).replace(/\/+$/, "");
      return json({ url: `${base}/c/${id}`, token, id }, 201);
    }
    const [channel, action, arg] = parts as [string, string | undefined, string | undefined];
    if (parts.length > 3) return text(404, "Unknown hub API route.");
    if ((action === undefined && request.method === "DELETE") || action === "token") {
      // The admin's: delete a channel, rotate or revoke its token.
      const notAdmin = await admin(request);
      if (notAdmin) return notAdmin;
      if (!CHANNEL_ID.test(channel) || (await store.channel(channel)) === null) return text(404, NO_CHANNEL);
      if (action === undefined) {
        await deleteChannel(kv, channel);
        cut(channel);
        return json({ ok: true, deleted: channel });
      }
      if (request.method !== "POST" || (arg !== "rotate" && arg !== "revoke")) {
        return text(404, "Use POST /api/channels/<id>/token/rotate or /token/revoke.");
      }
      const token = arg === "rotate" ? newToken() : undefined;
      const tokenHash = await hashToken(token ?? newToken()); // revoked: a hash no one holds the token of
      const entry = await kv.get<ChannelRecord>(["hub", "channel", channel]);
      if (entry.value === null) return text(404, NO_CHANNEL);
      await kv.atomic().check(entry).set(["hub", "channel", channel], { ...entry.value, tokenHash }).commit();
      cut(channel);
      return json(token === undefined ? { ok: true, revoked: true } : { ok: true, token });
    }
    if (action === "clients") {
      // The channel's token or the admin's.
      if ((await authorized(request, channel)) !== undefined && (await admin(request)) !== undefined) {
        return text(
          401,
          "Token refused: pass the channel's token (HOOKTAP_HUB_TOKEN or .hooktap/hub-token) or the admin token.",
        );
      }
      if (arg === undefined && request.method === "GET") {
        const list = await clientInfos(kv, channel, await store.head(channel), {
          now: now(),
          retentionMs: limits.retentionMs,
        });
        return json({ clients: list } satisfies WireClients);
      }
      if (arg !== undefined && request.method === "DELETE") {
        if (!(await removeClient(kv, channel, arg))) {
          return text(404, `No client named ${JSON.stringify(arg)} here.`);
        }
        void trim(channel, true);
        return json({ ok: true, removed: arg });
      }
      return text(405, "GET the clients, or DELETE /clients/<name>.");
    }
    const notOpen = await authorized(request, channel);
    if (notOpen) return notOpen;
    const client = clientOf(url.searchParams);
    if (client === undefined) {
      return text(400, "client must be a name of letters, digits, . _ @ - (at most 64).");
    }
    if (action === undefined && request.method === "GET") {
      const registered = await touchClient(kv, channel, client, {
        now: now(),
        maxClients: limits.maxClients,
      });
      if (registered === "full") {
        return text(
          403,
          `This channel has ${limits.maxClients} clients already (hub serve --max-clients). ` +
            "Remove one with `hooktap hub clients rm NAME`.",
        );
      }
      // A client says hello right before its first poll: from here on it counts as connected, so a sender
      // arriving in between waits for its answer (served by that poll) instead of getting the blind 200.
      seenNow(channel);
      await trim(channel); // before the low mark is read: a client coming back learns what it missed now
      const head = await store.head(channel);
      const acked = (await store.cursor(channel, client))?.seq ?? 0;
      const last = head === 0 ? [] : await store.read(channel, head - 1, { limit: 1 });
      const low = await lowMark(kv, channel);
      const full = await refused(kv, channel);
      return json(
        {
          head,
          acked,
          waiting: Math.max(0, head - acked),
          connected: connected(channel),
          lastReceivedAt: last[0]?.receivedAt ?? null,
          client,
          low: low.seq,
          lowAt: low.at,
          ...(full ? { refused: full } : {}),
        } satisfies WireStatus,
      );
    }
    if (action === "events" && request.method === "GET") return poll(request, channel, url.searchParams);
    if (action === "ack" && request.method === "POST") {
      const body = await request.json().catch(() => null) as { seq?: unknown } | null;
      if (!Number.isSafeInteger(body?.seq)) return text(400, 'Send {"seq": <number>}.');
      await ackClient(kv, channel, client, body!.seq as number, now());
      void trim(channel);
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
  return Object.assign(handler, {
    close: () => {
      clearInterval(sweep);
      stall.close();
      stopping.abort();
    },
  });
}

export type { IncomingRequest };
