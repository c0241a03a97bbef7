/**
 * `POST /api/channels/:channel/bye?client=NAME`: the client stops cleanly
 * (dev's Ctrl-C). It no longer counts as connected, so senders are no
 * longer held for its answer; with no other client of the channel
 * connected, the senders held now get the hub's 200 at once. A client that
 * is killed says nothing: it counts as connected for the window after its
 * last poll (src/hub/presence.ts).
 * @module
 */
import type { HubContext } from "../context.ts";
import { json } from "../respond.ts";
import { channelClient } from "./guard.ts";
import type { RouteParams } from "./route.ts";

/** Marks the client as gone. */
export async function bye(
  request: Request,
  { groups, url }: RouteParams,
  ctx: HubContext,
): Promise<Response> {
  const channel = groups.channel!;
  const open = await channelClient(request, channel, url, ctx);
  await request.body?.cancel().catch(() => {}); // it takes no body
  if ("refused" in open) return open.refused;
  ctx.presence.bye(channel, open.client);
  if (!ctx.presence.connected(channel)) {
    // Nobody left to answer: each held sender gets the hub's 200 now (its event is stored).
    for (const [key, waiter] of ctx.waiters) if (key.startsWith(`${channel}:`)) waiter(undefined);
  }
  return json({ ok: true });
}
