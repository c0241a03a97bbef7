/**
 * The admin API: `POST /api/channels` creates a channel, `DELETE
 * /api/channels/:channel` deletes it, `POST …/token/rotate|revoke` changes
 * its token. Every one needs the admin token; no endpoint lists channels.
 * @module
 */
import type { HubContext } from "../context.ts";
import { readBody } from "../../receiver/body.ts";
import { closeAfter } from "../../receiver/closing.ts";
import { plural } from "../../text/format.ts";
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

/** The keys the body of `POST /api/channels` may hold: none is defined yet. */
const CHANNEL_OPTIONS: readonly string[] = [];

/** Largest body `POST /api/channels` reads: it takes no options (`{}` or nothing). */
const MAX_OPTIONS_BODY = 4096;

/**
 * The body of `POST /api/channels`: none, or a JSON object of known keys (none is defined yet). A response
 * when it is anything else (`{bad`, `[]`, `{"a":1}`, too long): nothing is created then.
 */
async function noOptions(request: Request): Promise<Response | undefined> {
  let body: Uint8Array;
  try {
    body = await readBody(request, MAX_OPTIONS_BODY, request.headers.get("content-length"), {
      chunked: request.headers.has("transfer-encoding"),
    });
  } catch {
    await request.body?.cancel().catch(() => {});
    return closeAfter(text(
      400,
      `Bad request: send no body, or a JSON object of at most ${MAX_OPTIONS_BODY} bytes. No channel was created.`,
      { connection: "close" },
    ));
  }
  const raw = new TextDecoder().decode(body).trim();
  if (raw === "") return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    value = undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return text(
      400,
      "Bad request: the body is not a JSON object; send no body or {}. No channel was created.",
    );
  }
  const unknown = Object.keys(value).find((k) => !CHANNEL_OPTIONS.includes(k));
  if (unknown === undefined) return undefined;
  return text(
    400,
    `Bad request: unknown key ${JSON.stringify(unknown).slice(0, 80)}: the known keys are ${
      CHANNEL_OPTIONS.length === 0 ? "none (no option is defined yet)" : CHANNEL_OPTIONS.join(", ")
    }; send no body or {}. No channel was created.`,
  );
}

/** `POST /api/channels`: a new channel, its URL and its token (shown once). */
export async function createChannel(
  request: Request,
  { url }: RouteParams,
  ctx: HubContext,
): Promise<Response> {
  const notAdmin = await admin(request, ctx);
  if (notAdmin) return notAdmin;
  const badBody = await noOptions(request);
  if (badBody) return badBody;
  const { maxChannels } = ctx.limits;
  if (await ctx.store.channelCount() >= maxChannels) {
    return text(
      403,
      `The hub holds ${plural(maxChannels, "channel")} already (hub serve --max-channels). ` +
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
