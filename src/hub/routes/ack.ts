/**
 * `POST /api/channels/:channel/ack?client=NAME` with `{"seq": n}`: a
 * registered client stored every event up to `n` (what every client acked
 * may go). Refused past the channel's head (a later event at or under `n`
 * would count as taken) and for a name that never polled; never moves a
 * client's ack back.
 * @module
 */
import { readBody } from "../../receiver/body.ts";
import { closeAfter } from "../../receiver/closing.ts";
import type { HubContext } from "../context.ts";
import { json, NO_SNIFF } from "../respond.ts";
import { channelClient } from "./guard.ts";
import type { RouteParams } from "./route.ts";

/** Largest ack body read (`{"seq": 9007199254740991}` is 25 bytes). */
const MAX_ACK_BODY = 1024;

/** A refused ack: JSON, as the client API answers. */
function refusedAck(status: number, error: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ ok: false, error }), {
    status,
    headers: { "content-type": "application/json", ...NO_SNIFF, ...headers },
  });
}

/** The `seq` of the ack's body, or the response refusing the body. */
async function ackedSeq(request: Request): Promise<number | Response> {
  const usage = 'Send {"seq": n}, n the last sequence number stored (0 to the channel\'s head).';
  let raw: Uint8Array;
  try {
    raw = await readBody(request, MAX_ACK_BODY, request.headers.get("content-length"), {
      chunked: request.headers.has("transfer-encoding"),
    });
  } catch {
    await request.body?.cancel().catch(() => {});
    return closeAfter(refusedAck(400, `${usage} The body was unreadable or over ${MAX_ACK_BODY} bytes.`, {
      connection: "close",
    }));
  }
  let body: { seq?: unknown } | null = null;
  try {
    body = JSON.parse(new TextDecoder().decode(raw));
  } catch { /* refused below */ }
  const keys = typeof body === "object" && body !== null && !Array.isArray(body) ? Object.keys(body) : [];
  const extra = keys.filter((k) => k !== "seq");
  if (extra.length > 0) {
    const named = extra.slice(0, 5).map((k) => JSON.stringify(k.slice(0, 64))).join(", ");
    return refusedAck(
      400,
      `${usage} Unknown key${extra.length > 1 ? "s" : ""} ${named}: seq is the only one.`,
    );
  }
  const seq = keys.includes("seq") ? (body as { seq: unknown }).seq : undefined;
  if (typeof seq !== "number" || !Number.isSafeInteger(seq) || seq < 0) return refusedAck(400, usage);
  return seq;
}

/** Records the client's ack. */
export async function ack(
  request: Request,
  { groups, url }: RouteParams,
  ctx: HubContext,
): Promise<Response> {
  const channel = groups.channel!;
  const open = await channelClient(request, channel, url, ctx, ["client"]);
  if ("refused" in open) return open.refused;
  const seq = await ackedSeq(request);
  if (seq instanceof Response) return seq;
  let done;
  try {
    done = await ctx.store.ackClient(channel, open.client, seq, ctx.now());
  } catch {
    return refusedAck(503, "The hub could not record this ack; send it again.", { "retry-after": "1" });
  }
  if (done.kind === "unknown") {
    return refusedAck(
      404,
      `No client named ${
        JSON.stringify(open.client)
      } on this channel: a client registers with its first poll.`,
    );
  }
  if (done.kind === "ahead") {
    return refusedAck(
      400,
      `seq ${seq} is past this channel's last event (${done.head}): ack only events received. Nothing changed.`,
    );
  }
  ctx.space.mayHaveRoom(channel);
  void ctx.space.trim(channel);
  return json({ ok: true, acked: done.seq });
}
