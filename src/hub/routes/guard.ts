/**
 * The checks routes share: the channel's token, the admin token, the
 * client's name.
 * @module
 */
import type { HubContext } from "../context.ts";
import { plural } from "../../text/format.ts";
import { text } from "../respond.ts";
import { CLIENT_NAME } from "../team.ts";
import { bearer, CHANNEL_ID, hashToken, sameBytes, tokenMatches } from "../token.ts";

/** The client name of a client that gives none (a client from before issue 28). */
export const DEFAULT_CLIENT = "default";

/** The channel token's check: a response when refused. */
export async function authorized(
  request: Request,
  channel: string,
  ctx: HubContext,
): Promise<Response | undefined> {
  const token = bearer(request.headers);
  const record = CHANNEL_ID.test(channel) ? await ctx.store.channel(channel) : null;
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
export async function admin(request: Request, ctx: HubContext): Promise<Response | undefined> {
  if (ctx.adminHash === undefined) {
    return text(403, "The admin API is off: start the hub with HOOKTAP_HUB_ADMIN_TOKEN set.");
  }
  const given = bearer(request.headers);
  if (given === undefined || !sameBytes(await hashToken(given), await ctx.adminHash)) {
    return text(401, "Admin token refused. Pass the hub's admin token (HOOKTAP_HUB_ADMIN_TOKEN).");
  }
  return undefined;
}

/** The `client` query parameter (default: {@linkcode DEFAULT_CLIENT}), or `undefined` when it is not a name. */
export function clientOf(params: URLSearchParams): string | undefined {
  const name = params.get("client") ?? DEFAULT_CLIENT;
  return CLIENT_NAME.test(name) ? name : undefined;
}

/** The 400 for a client name that is not one. */
export function badClient(): Response {
  return text(400, "client must be a name of letters, digits, . _ @ - (at most 64).");
}

/** The 403 for a channel with all its clients registered. */
export function tooManyClients(ctx: HubContext): Response {
  return text(
    403,
    `This channel has ${plural(ctx.limits.maxClients, "client")} already (hub serve --max-clients). ` +
      "Remove one with `hooktap hub clients rm NAME`.",
  );
}

/** The channel's token and a valid client name, or the response refusing them. */
export async function channelClient(
  request: Request,
  channel: string,
  url: URL,
  ctx: HubContext,
): Promise<{ client: string } | { refused: Response }> {
  const notOpen = await authorized(request, channel, ctx);
  if (notOpen) return { refused: notOpen };
  const client = clientOf(url.searchParams);
  return client === undefined ? { refused: badClient() } : { client };
}
