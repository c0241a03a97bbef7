/**
 * `GET /api/channels/:channel/events`: a client's poll. Events after its
 * cursor at once, or a 200 whose body comes once events arrive or the wait
 * ends (a token rotated or revoked, or the channel deleted, meanwhile ends
 * it with `ended`).
 * @module
 */
import type { HubContext } from "../context.ts";
import type { StoredEvent } from "../kv_store.ts";
import { json, NO_CHANNEL, NO_SNIFF, text } from "../respond.ts";
import { bearer, hashToken, sameBytes } from "../token.ts";
import type { WireEvent, WirePoll } from "../wire.ts";
import { badClient, channelClient, clientOf, tooManyClients } from "./guard.ts";
import type { RouteParams } from "./route.ts";

/** Registers the poll's client and counts the connection: a response when refused. */
async function enter(
  channel: string,
  client: string,
  control: AbortController,
  ctx: HubContext,
): Promise<Response | undefined> {
  const { limits } = ctx;
  if (ctx.presence.held(channel) >= limits.maxConnections) {
    return text(
      429,
      `Too many connections with this channel's token: at most ${limits.maxConnections} at once ` +
        "(hub serve --max-connections). Stop another dev on this channel.",
      { "retry-after": "5" },
    );
  }
  const touched = await ctx.store.touchClient(channel, client, {
    now: ctx.now(),
    maxClients: limits.maxClients,
  });
  if (touched === "full") return tooManyClients(ctx);
  ctx.presence.hold(channel, control, client);
  return undefined;
}

/** `GET /api/channels/:channel/events?after&wait&limit&client`. */
export async function poll(
  request: Request,
  { groups, url }: RouteParams,
  ctx: HubContext,
): Promise<Response> {
  const channel = groups.channel!;
  const open = await channelClient(request, channel, url, ctx, ["after", "wait", "limit", "client"]);
  if ("refused" in open) return open.refused;
  const params = url.searchParams;
  const after = Number(params.get("after") ?? "0");
  const wait = Math.min(Number(params.get("wait") ?? ctx.pollWaitMs), ctx.pollWaitMs);
  const asked = Number(params.get("limit") ?? "1000");
  const client = clientOf(params);
  // `after` below the largest safe integer: the store reads from `after + 1`.
  if (!Number.isSafeInteger(after + 1) || after < 0 || !Number.isFinite(wait)) {
    return text(400, "after must be a sequence number and wait milliseconds.");
  }
  if (!Number.isSafeInteger(asked) || asked < 1) {
    return text(400, "limit must be a whole number of events, 1 or more (at most 1000 are sent).");
  }
  const limit = Math.min(asked, 1000);
  if (client === undefined) return badClient();
  const control = new AbortController();
  const refusedNow = await enter(channel, client, control, ctx);
  if (refusedNow) return refusedNow;
  const given = await hashToken(bearer(request.headers) ?? "");
  const visit = ctx.presence.visit(channel, client);
  const leave = () => {
    visit.end();
    ctx.presence.release(channel, control);
  };
  let held = false;
  try {
    const events = await ctx.store.read(channel, after, { limit });
    if (events.length > 0 || wait <= 0) return json(await batch(channel, after, events, ctx));
    held = true;
    return heldResponse(
      control,
      leave,
      () => hold(channel, after, limit, wait, given, control.signal, ctx),
      after,
    );
  } finally {
    if (!held) leave();
  }
}

/**
 * A long wait: the 200 goes out now and its body once `wait` settles. The client going away cancels the
 * body, which ends the wait and frees its connection slot. Never `request.signal`: Deno.serve prints a
 * notice into the hub's log for a request whose signal was read.
 */
function heldResponse(
  control: AbortController,
  leave: () => void,
  wait: () => Promise<WirePoll>,
  after: number,
): Response {
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
      answer = await wait();
    } catch {
      answer = { head: after, events: [], ended: { status: 503, message: "The hub's store failed; retry." } };
    } finally {
      leave();
    }
    try {
      sink!.enqueue(encoder.encode(JSON.stringify(answer)));
      sink!.close();
    } catch { /* the client went away */ }
  })();
  return new Response(body, { headers: { "content-type": "application/json", ...NO_SNIFF } });
}

/**
 * Waits up to `wait` ms for events after `after`, or for requests refused (507) meanwhile; a token rotated or
 * revoked, or the channel deleted, meanwhile ends the wait with `ended` (the 200 is already sent).
 */
async function hold(
  channel: string,
  after: number,
  limit: number,
  wait: number,
  given: Uint8Array,
  gone: AbortSignal,
  ctx: HubContext,
): Promise<WirePoll> {
  const timeout = AbortSignal.any([AbortSignal.timeout(wait), ctx.stopping, gone]);
  let events: StoredEvent[] = [];
  // Requests the channel's full storage refused (507) meanwhile end the wait too: dev says so within a
  // second, not when the wait ends (up to 25 s later).
  const refusedBefore = (await ctx.store.refused(channel))?.count ?? 0;
  // Another isolate may commit: look again every second as well.
  while (events.length === 0 && !timeout.aborted) {
    await ctx.store.changed(channel, after, AbortSignal.any([timeout, AbortSignal.timeout(1000)]));
    // The token is checked again each time: a rotated or revoked one is cut off on a held poll too.
    const fresh = await ctx.store.channel(channel, { fresh: true });
    if (fresh === null) return { head: after, events: [], ended: { status: 404, message: NO_CHANNEL } };
    if (!sameBytes(fresh.tokenHash, given)) {
      return {
        head: after,
        events: [],
        ended: { status: 401, message: "Token refused: this channel's token was rotated or revoked." },
      };
    }
    if (gone.aborted) break;
    events = await ctx.store.read(channel, after, { limit });
    if (events.length === 0 && ((await ctx.store.refused(channel))?.count ?? 0) > refusedBefore) break;
  }
  return await batch(channel, after, events, ctx);
}

/** The poll's answer for `events`. */
async function batch(
  channel: string,
  after: number,
  events: StoredEvent[],
  ctx: HubContext,
): Promise<WirePoll> {
  const { store } = ctx;
  // Senders stored a moment ago may not have set their waiter yet: wait for them (ingest.ts `announce`).
  const answering = ctx.answering.get(channel);
  if (answering !== undefined && answering.size > 0) await Promise.all(answering);
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
      answer: ctx.waiters.has(`${channel}:${e.seq}`),
    });
  }
  const low = await store.lowMark(channel);
  const full = await store.refused(channel);
  return {
    // Not at least `after`: a hub restored from a backup has a head below the client's cursor, which the
    // client must see to take the events numbered again (before, `after` hid it and they were lost).
    head: Math.max(wire.at(-1)?.seq ?? 0, await store.head(channel)),
    events: wire,
    ...(low.seq > after ? { low: low.seq, lowAt: low.at } : {}),
    ...(full ? { refused: full } : {}),
  };
}
