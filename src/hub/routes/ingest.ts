/**
 * Receiving: any request to `/c/<id>/<path>` is stored in the channel
 * (within its rate, its bytes in flight and its storage) and answered with
 * the hub's 200, or with a connected client's own answer.
 * @module
 */
import { BodyUnreadableError, readBody } from "../../receiver/body.ts";
import { closeAfter } from "../../receiver/closing.ts";
import { bodyErrorResponse } from "../../receiver/body_answer.ts";
import type { BodyBudgetError } from "../../receiver/budget.ts";
import { requestHeaders } from "../../receiver/headers.ts";
import { HubBudgetError, RequestBudget } from "../budgets.ts";
import type { HubContext } from "../context.ts";
import { ChannelFullError, HeadTooLargeError, type NewEvent, storedBytes } from "../kv_store.ts";
import { json, NO_CHANNEL, text } from "../respond.ts";
import { CHANNEL_ID } from "../token.ts";
import { type WireAnswer, wireRequestProblem } from "../wire.ts";
import type { RouteParams } from "./route.ts";

const FLAGS = {
  channel: "the bound of bytes in flight for this channel, hub serve --max-bytes-in-flight-per-channel",
  address: "the bound of bytes in flight for your address, hub serve --max-bytes-in-flight-per-address",
  hub: "the hub's bound of bytes in flight, hub serve --max-bytes-in-flight",
} as const;

/** Headers of one connection, not of an answer: the hub frames the sender's response itself. */
const HOP_BY_HOP = new Set([
  "connection",
  "content-length",
  "keep-alive",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

function inFlight(error: BodyBudgetError): string {
  return FLAGS[error instanceof HubBudgetError ? error.scope : "hub"];
}

/** `* /c/:channel:rest`: stores the request and answers its sender. */
export async function ingest(
  request: Request,
  { groups, url, info }: RouteParams,
  ctx: HubContext,
): Promise<Response> {
  const channel = groups.channel!;
  const record = CHANNEL_ID.test(channel) ? await ctx.store.channel(channel) : null;
  if (record === null) return text(404, NO_CHANNEL);
  const retry = ctx.rate.take(channel);
  if (retry !== undefined) {
    await request.body?.cancel().catch(() => {});
    return text(
      429,
      `Too many requests to this channel: it accepts ${ctx.limits.ratePerMinute} a minute (hub serve --rate-limit). ` +
        `Nothing was stored; retry after ${retry} s.`,
      { "retry-after": String(retry), connection: "close" },
    );
  }
  ctx.space.received(channel);
  const headers = requestHeaders(request);
  const addr = info?.remoteAddr;
  const remoteAddr = addr?.transport === "tcp" ? addr.hostname : "";
  const rest = groups.rest ?? "";
  const parts = {
    receivedAt: new Date(ctx.now()).toISOString(),
    method: request.method,
    path: rest === "" ? "/" : rest,
    query: url.search.slice(1),
    headers,
    remoteAddr,
  };
  // What dev's client would refuse is refused here, before the body is read: stored, it would stop every
  // client's catch-up at it for good.
  const problem = wireRequestProblem(parts);
  if (problem !== undefined) return await untakable(request, problem);
  const budget = new RequestBudget(ctx.budgets, channel, remoteAddr);
  let body: Uint8Array;
  try {
    // dev's reader: every body in flight is charged to its channel's, its address's and the hub's byte
    // budget, and a body that stops arriving is cut off.
    body = await readBody(request, ctx.limits.maxBodySize, request.headers.get("content-length"), {
      chunked: request.headers.has("transfer-encoding"),
      budget,
      stall: ctx.stall,
    });
  } catch (error) {
    if (error instanceof BodyUnreadableError) return hiddenBody(request.method);
    return bodyErrorResponse(error, {
      server: "the hub",
      taker: "this hub",
      maxBodySize: ctx.limits.maxBodySize,
      maxBodySetting: "hub serve --max-body-size",
      inFlight,
      method: request.method,
    });
  }
  try {
    // Received once the body is whole (as before this check came first).
    const receivedAt = new Date(ctx.now()).toISOString();
    return await keep(channel, { ...parts, receivedAt, size: body.length, body }, ctx);
  } finally {
    budget.release(body.length);
  }
}

/**
 * The 400 for a GET or HEAD that announces a body: Deno.serve hides such a body, so the hub could store only
 * part of the request (docs/hub.md). The connection closes after it (the body's bytes may still come).
 */
function hiddenBody(method: string): Response {
  return closeAfter(text(
    400,
    `Bad request: the hub cannot read the body of a ${method} request (Deno.serve hides GET and HEAD ` +
      "bodies). Nothing was stored; send a body with POST (or another method).",
    { connection: "close" },
  ));
}

/** The 400 for a request dev could not take (`problem`, from the wire's rules); its body is not read. */
async function untakable(request: Request, problem: string): Promise<Response> {
  await request.body?.cancel().catch(() => {});
  return closeAfter(text(
    400,
    `Bad request: ${problem} (a method takes at most 32 characters, a header name at most 256): dev could ` +
      "not take this request. Nothing was stored.",
    { connection: "close" },
  ));
}

/** The 507 of a full channel (counted: dev shows the refusals). */
async function full(channel: string, ctx: HubContext): Promise<Response> {
  await ctx.space.refused(channel, ctx.now());
  return text(
    507,
    `This channel's storage is full (${ctx.limits.maxChannelBytes} bytes, hub serve --max-channel-bytes) with ` +
      "events a client has not acknowledged yet. Nothing was stored; retry later.",
    { "retry-after": "60" },
  );
}

/** Stores a received request (within the channel's storage) and answers the sender. */
async function keep(channel: string, event: NewEvent, ctx: HubContext): Promise<Response> {
  const { space } = ctx;
  const cost = storedBytes(event); // what the store adds to the channel's usage
  const max = ctx.limits.maxChannelBytes;
  // Found full a moment ago: refused at once (a flood at a full channel costs no store work per request).
  if (space.knownFull(channel, cost)) return await full(channel, ctx);
  // Checked and reserved with no await in between: concurrent senders in this process cannot all pass the
  // same check. The commit checks the cap again against KV (other hub processes on the same KV).
  if ((await space.used(channel, false)) + space.reserved(channel) + cost > max) {
    // Full: drop what every client acknowledged or what passed retention, then look again.
    await space.trimWhenFull(channel);
    const room = max - (await space.used(channel, true)) - space.reserved(channel);
    if (cost > room) {
      space.markFull(channel, room);
      return await full(channel, ctx);
    }
  }
  space.reserve(channel, cost);
  // A sender held for a connected client's answer: polls wait until its waiter exists (context.ts).
  const held = ctx.presence.connected(channel) ? announce(channel, ctx) : undefined;
  let seq: number;
  try {
    seq = await ctx.store.append(channel, event, { maxChannelBytes: max });
    space.appended(channel, cost);
  } catch (error) {
    held?.done();
    if (error instanceof ChannelFullError) return await full(channel, ctx);
    if (error instanceof HeadTooLargeError) {
      return text(431, "Request headers too large. Nothing was stored.");
    }
    return text(503, "The hub could not store this request. Nothing was stored; retry later.", {
      "retry-after": "5",
    });
  } finally {
    space.reserve(channel, -cost);
  }
  if (held !== undefined) {
    const answer = await heldAnswer(`${channel}:${seq}`, ctx, held.done);
    if (answer !== undefined) {
      return new Response(answer.body === "" ? null : Uint8Array.fromBase64(answer.body), {
        status: answer.status,
        headers: answer.headers.filter(([name]) => !HOP_BY_HOP.has(name.toLowerCase())),
      });
    }
  }
  return json({ ok: true, hub: seq });
}

/** Marks a sender of `channel` as one that will wait for an answer; `done` once its waiter is set. */
function announce(channel: string, ctx: HubContext): { done(): void } {
  let set = ctx.answering.get(channel);
  if (set === undefined) ctx.answering.set(channel, set = new Set());
  const { promise, resolve } = Promise.withResolvers<void>();
  set.add(promise);
  return {
    done() {
      resolve();
      set.delete(promise);
      if (set.size === 0 && ctx.answering.get(channel) === set) ctx.answering.delete(channel);
    },
  };
}

/** Waits for a connected client's answer to the event `key` (`channel:seq`), up to the answer timeout. */
async function heldAnswer(
  key: string,
  ctx: HubContext,
  registered: () => void,
): Promise<WireAnswer | undefined> {
  const answer = await new Promise<WireAnswer | undefined>((resolve) => {
    const timer = setTimeout(() => resolve(undefined), ctx.limits.answerTimeoutMs);
    ctx.waiters.set(key, (a) => {
      clearTimeout(timer);
      resolve(a);
    });
    registered();
  });
  ctx.waiters.delete(key);
  return answer;
}
