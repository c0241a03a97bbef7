/**
 * The admin API: `POST /api/channels` creates a channel, `DELETE
 * /api/channels/:channel` deletes it, `POST …/token/rotate|revoke` changes
 * its token. Every one needs the admin token; no endpoint lists channels.
 * @module
 */
import type { HubContext } from "../context.ts";
import { json, NO_CHANNEL, text } from "../respond.ts";
import { CHANNEL_ID, hashToken, newChannelId, newToken } from "../token.ts";
import { admin } from "./guard.ts";
import type { RouteParams } from "./route.ts";

/** Ends every poll held on `channel` (its token changed or it was deleted): each answers anew. */
function cut(channel: string, ctx: HubContext): void {
  ctx.store.forget(channel);
  ctx.presence.cut(channel);
}

/** The admin's check, then the channel's existence: a response when either fails. */
async function adminOn(request: Request, channel: string, ctx: HubContext): Promise<Response | undefined> {
  const notAdmin = await admin(request, ctx);
  if (notAdmin) return notAdmin;
  if (!CHANNEL_ID.test(channel) || (await ctx.store.channel(channel)) === null) return text(404, NO_CHANNEL);
  return undefined;
}

/** `POST /api/channels`: a new channel, its URL and its token (shown once). */
export async function createChannel(
  request: Request,
  { url }: RouteParams,
  ctx: HubContext,
): Promise<Response> {
  const notAdmin = await admin(request, ctx);
  if (notAdmin) return notAdmin;
  const { maxChannels } = ctx.limits;
  if (await ctx.store.channelCount() >= maxChannels) {
    return text(
      403,
      `The hub holds ${maxChannels} channels already (hub serve --max-channels). ` +
        "Delete one with `hooktap hub channel rm ID`.",
    );
  }
  const id = newChannelId();
  const token = newToken();
  await ctx.store.createChannel(id, await hashToken(token));
  const base = (ctx.publicUrl ?? url.origin).replace(/\/+$/, "");
  return json({ url: `${base}/c/${id}`, token, id }, 201);
}

/** `DELETE /api/channels/:channel`: the channel and all it holds. */
export async function deleteChannel(
  request: Request,
  { groups }: RouteParams,
  ctx: HubContext,
): Promise<Response> {
  const channel = groups.channel!;
  const refused = await adminOn(request, channel, ctx);
  if (refused) return refused;
  await ctx.store.deleteChannel(channel);
  cut(channel, ctx);
  return json({ ok: true, deleted: channel });
}

/** `POST /api/channels/:channel/token/rotate|revoke`: a new token (shown once), or none that opens it. */
export async function rotateToken(
  request: Request,
  { groups }: RouteParams,
  ctx: HubContext,
): Promise<Response> {
  const channel = groups.channel!;
  const refused = await adminOn(request, channel, ctx);
  if (refused) return refused;
  const token = groups.op === "rotate" ? newToken() : undefined;
  const tokenHash = await hashToken(token ?? newToken()); // revoked: a hash no one holds the token of
  if (!(await ctx.store.setTokenHash(channel, tokenHash))) return text(404, NO_CHANNEL);
  cut(channel, ctx);
  return json(token === undefined ? { ok: true, revoked: true } : { ok: true, token });
}
