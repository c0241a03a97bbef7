/**
 * `POST /api/channels/:channel/bye?client=NAME`: the client stops cleanly
 * (dev's Ctrl-C). It no longer counts as connected, so senders are no
 * longer held for its answer; with no other client of the channel
 * connected, the senders held now get the hub's 200 at once. A client that
 * is killed says nothing: it counts as connected for the window after its
 * last poll (src/hub/presence.ts). It takes no body, names its client
 * (`client=` is required) and that client must be registered (404 like an
 * ack): a bye creates nothing.
 * @module
 */
import { closeAfter } from "../../receiver/closing.ts";
import type { HubContext } from "../context.ts";
import { json, NO_SNIFF } from "../respond.ts";
import { channelClient } from "./guard.ts";
import type { RouteParams } from "./route.ts";

/** A refused bye: JSON, as the client API answers. */
function refusedBye(status: number, error: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ ok: false, error }), {
    status,
    headers: { "content-type": "application/json", ...NO_SNIFF, ...headers },
  });
}

/** Whether the request announces a body (never read: the connection closes after the 400). */
function hasBody(request: Request): boolean {
  const length = request.headers.get("content-length");
  return request.headers.has("transfer-encoding") || (length !== null && length.trim() !== "0");
}

/** Marks the client as gone. */
export async function bye(
  request: Request,
  { groups, url }: RouteParams,
  ctx: HubContext,
): Promise<Response> {
  const channel = groups.channel!;
  if (hasBody(request)) {
    await request.body?.cancel().catch(() => {});
    return closeAfter(refusedBye(400, "A bye takes no body: send it without one.", { connection: "close" }));
  }
  const open = await channelClient(request, channel, url, ctx, ["client"]);
  await request.body?.cancel().catch(() => {});
  if ("refused" in open) return open.refused;
  if (!url.searchParams.has("client")) {
    return refusedBye(400, "Name the client that leaves: bye?client=NAME.");
  }
  if ((await ctx.store.cursor(channel, open.client)) === null) {
    return refusedBye(
      404,
      `No client named ${
        JSON.stringify(open.client)
      } on this channel: a client registers with its first poll.`,
    );
  }
  ctx.presence.bye(channel, open.client);
  if (!ctx.presence.connected(channel)) {
    // Nobody left to answer: each held sender gets the hub's 200 now (its event is stored).
    for (const [key, waiter] of ctx.waiters) if (key.startsWith(`${channel}:`)) waiter(undefined);
  }
  return json({ ok: true });
}
