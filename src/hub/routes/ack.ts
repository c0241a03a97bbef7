/**
 * `POST /api/channels/:channel/ack?client=NAME` with `{"seq": n}`: a
 * client stored every event up to `n` (what every client acked may go).
 * @module
 */
import type { HubContext } from "../context.ts";
import { json, text } from "../respond.ts";
import { channelClient } from "./guard.ts";
import type { RouteParams } from "./route.ts";

/** Records the client's ack. */
export async function ack(
  request: Request,
  { groups, url }: RouteParams,
  ctx: HubContext,
): Promise<Response> {
  const channel = groups.channel!;
  const open = await channelClient(request, channel, url, ctx);
  if ("refused" in open) return open.refused;
  const body = await request.json().catch(() => null) as { seq?: unknown } | null;
  if (!Number.isSafeInteger(body?.seq)) return text(400, 'Send {"seq": <number>}.');
  await ctx.store.ackClient(channel, open.client, body!.seq as number, ctx.now());
  void ctx.space.trim(channel);
  return json({ ok: true });
}
