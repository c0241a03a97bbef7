/**
 * `POST /api/channels/:channel/answers/:seq`: a connected client's answer
 * to the sender of event `seq`, held while the client handled it. The body
 * is read within a bound (charged to the hub's bytes in flight) and checked
 * whole before the sender's response is built from it: a bad answer is
 * refused here (400), never turned into the sender's 500.
 * @module
 */
import { readBody } from "../../receiver/body.ts";
import { closeAfter } from "../../receiver/closing.ts";
import type { HubContext } from "../context.ts";
import { json, text } from "../respond.ts";
import { type WireAnswer, wireAnswerProblem } from "../wire.ts";
import { channelClient } from "./guard.ts";
import type { RouteParams } from "./route.ts";

/** Room in an answer's JSON besides its body's base64: the status and the headers. */
const ANSWER_HEAD_ROOM = 256 * 1024;

/** Largest answer read: a body as large as the hub stores, in base64, and its headers. */
function maxAnswer(ctx: HubContext): number {
  return Math.ceil(ctx.limits.maxBodySize / 3) * 4 + ANSWER_HEAD_ROOM;
}

const USAGE = "Send {status, headers: [[name, value], ...], body (base64)}";

/** The answer in the request's body, or the response refusing it. */
async function readAnswer(request: Request, ctx: HubContext): Promise<WireAnswer | Response> {
  const max = maxAnswer(ctx);
  let raw: Uint8Array;
  try {
    raw = await readBody(request, max, request.headers.get("content-length"), {
      chunked: request.headers.has("transfer-encoding"),
      budget: ctx.budgets.hub,
      stall: ctx.stall,
    });
  } catch {
    await request.body?.cancel().catch(() => {});
    return closeAfter(text(400, `${USAGE}: the body was unreadable or over ${max} bytes.`, {
      connection: "close",
    }));
  }
  try {
    let given: unknown;
    try {
      given = JSON.parse(new TextDecoder().decode(raw));
    } catch {
      return text(400, `${USAGE}: the body is not JSON.`);
    }
    const problem = wireAnswerProblem(given, ctx.limits.maxBodySize);
    return problem === undefined ? given as WireAnswer : text(400, `${USAGE}: ${problem}.`);
  } finally {
    ctx.budgets.hub.release(raw.length);
  }
}

/** Hands the answer to its waiting sender (none waiting: dropped, and said so). */
export async function answer(
  request: Request,
  { groups, url }: RouteParams,
  ctx: HubContext,
): Promise<Response> {
  const channel = groups.channel!;
  const open = await channelClient(request, channel, url, ctx, ["client"]);
  if ("refused" in open) {
    await request.body?.cancel().catch(() => {});
    return open.refused;
  }
  const seq = Number(groups.seq);
  if (!/^[1-9][0-9]*$/.test(groups.seq!) || !Number.isSafeInteger(seq)) {
    await request.body?.cancel().catch(() => {});
    return text(400, `${USAGE} to /answers/<seq>, the event's sequence number (1 or more) from the poll.`);
  }
  const given = await readAnswer(request, ctx);
  if (given instanceof Response) return given;
  const waiter = ctx.waiters.get(`${channel}:${groups.seq}`);
  waiter?.(given);
  // `held`: whether a sender was waiting for this answer (false: it had its answer already, or never waited).
  return json({ ok: true, held: waiter !== undefined });
}
