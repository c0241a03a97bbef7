/**
 * `POST /api/channels/:channel/answers/:seq`: a connected client's answer
 * to the sender of event `seq`, held while the client handled it.
 * @module
 */
import type { HubContext } from "../context.ts";
import { json, text } from "../respond.ts";
import type { WireAnswer } from "../wire.ts";
import { channelClient } from "./guard.ts";
import type { RouteParams } from "./route.ts";

/** Hands the answer to its waiting sender (none waiting: dropped). */
export async function answer(
  request: Request,
  { groups, url }: RouteParams,
  ctx: HubContext,
): Promise<Response> {
  const channel = groups.channel!;
  const open = await channelClient(request, channel, url, ctx, ["client"]);
  if ("refused" in open) return open.refused;
  const given = await request.json().catch(() => null) as WireAnswer | null;
  if (
    given === null || !Number.isInteger(given.status) || given.status < 200 || given.status > 599 ||
    !Array.isArray(given.headers) || typeof given.body !== "string"
  ) return text(400, "Send {status, headers, body (base64)}.");
  ctx.waiters.get(`${channel}:${groups.seq}`)?.(given);
  return json({ ok: true });
}
