/**
 * `GET /api/channels/:channel?client=NAME`: the channel's status for a
 * client, read-only. With `&hello=1` it is `dev`'s hello before its first
 * poll: it registers the client (a new name pins the events from then on)
 * and counts it as connected (docs/hub.md says so: a sender arriving
 * before that first poll is held for dev's answer). A plain status read
 * registers, pins and connects no one.
 * @module
 */
import type { HubContext } from "../context.ts";
import { json, text } from "../respond.ts";
import { waitingFor } from "../team.ts";
import type { WireStatus } from "../wire.ts";
import { channelClient, tooManyClients } from "./guard.ts";
import type { RouteParams } from "./route.ts";

/** The channel's status for the calling client. */
export async function status(
  request: Request,
  { groups, url }: RouteParams,
  ctx: HubContext,
): Promise<Response> {
  const channel = groups.channel!;
  const open = await channelClient(request, channel, url, ctx, ["client", "hello"]);
  if ("refused" in open) return open.refused;
  const { client } = open;
  const { store } = ctx;
  const hello = url.searchParams.get("hello");
  if (hello !== null && hello !== "1") {
    return text(
      400,
      "hello takes 1 (dev's hello, which registers the client); leave it out for a status read.",
    );
  }
  if (hello === "1") {
    // Trim first: a new client registers at the low mark, and a stale one would pin events every other
    // client acked already. Forced for a new name with room for it (the throttle may have skipped the last
    // acks' trim); names past --max-clients are refused below and force nothing.
    const fresh = (await store.cursor(channel, client)) === null &&
      (await store.clients(channel)).length < ctx.limits.maxClients;
    await ctx.space.trim(channel, fresh);
    const registered = await store.touchClient(channel, client, {
      now: ctx.now(),
      maxClients: ctx.limits.maxClients,
    });
    if (registered === "full") return tooManyClients(ctx);
    // A client says hello right before its first poll: from here on it counts as connected, so a sender
    // arriving in between waits for its answer (served by that poll) instead of getting the blind 200.
    ctx.presence.seen(channel, client);
  }
  await ctx.space.trim(channel); // before the low mark is read: a client coming back learns what it missed now
  const head = await store.head(channel);
  const cursor = await store.cursor(channel, client);
  const acked = cursor?.seq ?? 0;
  const last = head === 0 ? [] : await store.read(channel, head - 1, { limit: 1 });
  const low = await store.lowMark(channel);
  const full = await store.refused(channel);
  return json(
    {
      head,
      acked,
      // What it would get if it polled now: the events it has not acked that the hub still holds (a new
      // client starts at the low mark; so does one away longer than the retention).
      waiting: waitingFor(head, acked, low.seq),
      // This client's polls (not another's): false for a name that never polled, or that said bye.
      connected: ctx.presence.connected(channel, client),
      lastReceivedAt: last[0]?.receivedAt ?? null,
      client,
      registered: cursor !== null,
      low: low.seq,
      lowAt: low.at,
      ...(full ? { refused: full } : {}),
    } satisfies WireStatus,
  );
}
