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

/**
 * The 400 for query parameters a route does not take, or gives twice (the first would win silently), or
 * `undefined` when each is `known` and given once.
 */
export function strayParams(params: URLSearchParams, known: readonly string[]): Response | undefined {
  const seen = new Set<string>();
  const unknown = new Set<string>();
  const repeated = new Set<string>();
  for (const key of params.keys()) {
    if (!known.includes(key)) unknown.add(key);
    else if (seen.has(key)) repeated.add(key);
    seen.add(key);
  }
  if (unknown.size === 0 && repeated.size === 0) return undefined;
  const names = (set: Set<string>) =>
    [...set].slice(0, 5).map((k) => JSON.stringify(k.slice(0, 64))).join(", ");
  const problems = [
    ...(unknown.size > 0 ? [`unknown query parameter${unknown.size > 1 ? "s" : ""} ${names(unknown)}`] : []),
    ...(repeated.size > 0 ? [`${names(repeated)} given more than once`] : []),
  ];
  return text(
    400,
    `Bad request: ${problems.join("; ")}. This route takes ${known.join(", ")}, each at most once.`,
  );
}

/**
 * The channel's token and a valid client name, or the response refusing them; the query may hold only
 * `known` parameters, each once.
 */
export async function channelClient(
  request: Request,
  channel: string,
  url: URL,
  ctx: HubContext,
  known: readonly string[],
): Promise<{ client: string } | { refused: Response }> {
  const notOpen = await authorized(request, channel, ctx);
  if (notOpen) return { refused: notOpen };
  const stray = strayParams(url.searchParams, known);
  if (stray) return { refused: stray };
  const client = clientOf(url.searchParams);
  return client === undefined ? { refused: badClient() } : { client };
}
