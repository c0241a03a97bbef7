/**
 * `GET /api/channels/:channel/clients` and `DELETE …/clients/:name`: the
 * channel's registered clients, for its token's holder or the admin.
 * @module
 */
import type { HubContext } from "../context.ts";
import { json, NO_CHANNEL, text } from "../respond.ts";
import { CHANNEL_ID } from "../token.ts";
import { CLIENT_NAME, clientInfos } from "../team.ts";
import type { WireClients } from "../wire.ts";
import { admin, authorized } from "./guard.ts";
import type { RouteParams } from "./route.ts";

/**
 * The channel's token or the admin's: a response when neither, or when the channel does not exist (the admin
 * may name any id: a missing one is the 404 every missing channel gets, never an empty list).
 */
async function tokenOrAdmin(
  request: Request,
  channel: string,
  ctx: HubContext,
): Promise<Response | undefined> {
  if ((await authorized(request, channel, ctx)) === undefined) return undefined;
  if ((await admin(request, ctx)) !== undefined) {
    return text(
      401,
      "Token refused: pass the channel's token (HOOKTAP_HUB_TOKEN or .hooktap/hub-token) or the admin token.",
    );
  }
  if (!CHANNEL_ID.test(channel) || (await ctx.store.channel(channel)) === null) return text(404, NO_CHANNEL);
  return undefined;
}

/** Lists the clients. */
export async function listClients(
  request: Request,
  { groups }: RouteParams,
  ctx: HubContext,
): Promise<Response> {
  const channel = groups.channel!;
  const refused = await tokenOrAdmin(request, channel, ctx);
  if (refused) return refused;
  const { store } = ctx;
  const [clients, head, low] = [
    await store.clients(channel),
    await store.head(channel),
    await store.lowMark(channel),
  ];
  const list = clientInfos(clients, { head, low: low.seq }, {
    now: ctx.now(),
    retentionMs: ctx.limits.retentionMs,
  });
  return json({ clients: list } satisfies WireClients);
}

/** Removes a client (what only it pinned may go). */
export async function removeClient(
  request: Request,
  { groups }: RouteParams,
  ctx: HubContext,
): Promise<Response> {
  const channel = groups.channel!;
  // The token first: without it, every name (even one that is not a name) gets the same 401.
  const refused = await tokenOrAdmin(request, channel, ctx);
  if (refused) return refused;
  let name: string | undefined;
  try {
    name = decodeURIComponent(groups.name!); // `hooktap hub clients rm` encodes the name (`@` is `%40`)
  } catch { /* not a name */ }
  // Only a client's name reaches the store (a KV key part): anything else is no client.
  if (name === undefined || !CLIENT_NAME.test(name) || !(await ctx.store.removeClient(channel, name))) {
    return text(404, `No client named ${JSON.stringify((name ?? groups.name!).slice(0, 80))} here.`);
  }
  ctx.presence.forget(channel, name);
  ctx.space.mayHaveRoom(channel);
  void ctx.space.trim(channel, true);
  return json({ ok: true, removed: name });
}
