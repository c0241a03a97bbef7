/**
 * The answer a relayed request's sender gets, made from the one attempt's
 * outcome: the app's status, headers and body, or hooktap's own saying why
 * not: a `502` (no answer; an answer hooktap could not pass on whole) or a
 * `503` (the relayed answers held in memory at once were at their bound,
 * ./relay_budget.ts). Every such answer names the URL sent to and the stored
 * event. The record says which the sender got (`senderStatus`,
 * {@linkcode noteSender}), so every view tells the same (./answer_note.ts).
 * @module
 */
import type { CapturedEvent } from "../event/record.ts";
import type { AttemptOutcome } from "./deliver.ts";
import { isHopHeader } from "./target.ts";
import {
  badGatewayBody,
  busyRelayText,
  noAnswerRelayText,
  overRelayText,
  RELAY_BODY_MAX,
  relayRefusal,
  senderStatus,
  stoppedRelayText,
} from "./answer_note.ts";
import type { RelayLease } from "./relay_budget.ts";

export { RELAY_BODY_MAX };

function ownAnswer(event: CapturedEvent, status: 502 | 503, text: string): Response {
  const headers: Record<string, string> = {
    "content-type": "text/plain; charset=utf-8",
    "x-hooktap-event-id": event.id,
  };
  if (status === 503) headers["retry-after"] = "5";
  return new Response(badGatewayBody(text, event.id), { status, headers });
}

/**
 * Writes on the relay attempt's record what its sender gets: hooktap's status when not the app's, or that it
 * left (`left`: it hung up before the answer came). `stopped`: dev stopped first, and answered the sender a
 * 502 itself (src/receiver/handler.ts).
 */
export function noteSender(outcome: AttemptOutcome, left = false, stopped = false): void {
  if (left) {
    outcome.record.senderLeft = true;
    return;
  }
  if (stopped) {
    outcome.record.senderStatus = 502;
    return;
  }
  const response = outcome.response;
  // Over the budget and over 64 MiB: the size is the lasting reason (sent again, it would be refused again).
  const busy = response?.overBudget === true && response.bodySize <= RELAY_BODY_MAX;
  const status = busy ? 503 : senderStatus(outcome.record);
  if (status !== undefined) outcome.record.senderStatus = status;
}

/** The pieces a leased body is handed to the server in: it takes the next as the sender's socket drains. */
const PIECE = 64 * 1024;

/** What a relayed answer's sender that stopped reading it was cut off with (see {@linkcode RelayWrite}). */
export interface StalledWrite {
  /** The bound it passed, in ms. */
  afterMs: number;
  /** Bytes handed to the server (some may still have sat in the sockets' buffers). */
  handed: number;
  /** The answer body's size. */
  size: number;
}

/** The bound on writing a relayed answer to its sender. */
export interface RelayWrite {
  /** The sender has this long to read the whole body, in ms (the forward's `timeout`). */
  ms: number;
  /** Called when it has not: the connection is closed and the answer's share given back. */
  onStalled?: (stalled: StalledWrite) => void;
}

/**
 * The body `bytes` as a stream that gives `lease` back once the sender has it, or left (the connection
 * closed: the stream is cancelled), or has not read it all within `write.ms`: the stream then ends short of
 * its Content-Length, so Deno.serve closes the connection (the sender sees a cut body, never a whole one);
 * a body already handed over whole by then ends whole, untold (nothing was cut).
 * Handed over in pieces: the server pulls the next as the socket drains, so the last is taken once the rest
 * is on its way (as one piece, the server took it at once and held it while a slow sender read, with the
 * lease already given back); a sender that stops reading stops the pulls, which is how a stalled write is
 * seen (Deno.serve tells nothing else of the socket).
 */
function leasedBody(bytes: Uint8Array, lease: RelayLease, write?: RelayWrite): ReadableStream<Uint8Array> {
  let at = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const end = () => {
    clearTimeout(timer);
    lease.release();
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (write === undefined) return;
      timer = setTimeout(() => {
        end();
        try {
          controller.close();
        } catch { /* already closed */ }
        // All of it handed over: closing now ends the body whole (its Content-Length), nothing is cut, and the
        // share is given back as the last pull would have: no stall to tell.
        if (at >= bytes.length) return;
        write.onStalled?.({ afterMs: write.ms, handed: at, size: bytes.length });
      }, write.ms);
    },
    pull(controller) {
      if (at < bytes.length) {
        controller.enqueue(bytes.subarray(at, at + PIECE));
        at += PIECE;
        return;
      }
      controller.close();
      end();
    },
    cancel() {
      end();
    },
  }, { highWaterMark: 0 });
}

/**
 * The sender's answer to `event`, relayed once with `outcome` (its record noted by {@linkcode noteSender}).
 * `lease`: the answer's share of the relay budget, given back once the sender has the body (at once when
 * hooktap answers itself). `write`: how long the sender has to read the body, and who is told when it has not.
 */
export function relayAnswer(
  event: CapturedEvent,
  outcome: AttemptOutcome,
  lease?: RelayLease,
  write?: RelayWrite,
): Response {
  const response = outcome.response;
  const url = outcome.record.url;
  const refusal = relayRefusal(outcome.record);
  if (response === undefined || (refusal !== undefined && refusal !== "not an HTTP status")) {
    lease?.release();
    if (response === undefined) {
      return ownAnswer(event, 502, noAnswerRelayText(url, outcome.error?.message ?? "no answer"));
    }
    // Passing on the start of an answer as if whole would tell the sender a lie: say it instead.
    return refusal === "busy"
      ? ownAnswer(event, 503, busyRelayText(url, response.status))
      : refusal === "stopped"
      ? ownAnswer(event, 502, stoppedRelayText(url))
      : ownAnswer(event, 502, overRelayText(url, response.status, response.bodySize));
  }
  const head = event.method === "HEAD";
  const headers = new Headers();
  for (const [name, value] of response.headers) {
    // A HEAD's Content-Length is the size a GET would get: passed on (Deno.serve keeps it on a null body).
    if (isHopHeader(name) || (!head && name.toLowerCase() === "content-length")) continue;
    try {
      headers.append(name, value);
    } catch { /* a header Deno refuses to send back */ }
  }
  headers.set("x-hooktap-event-id", event.id);
  const nullBody = response.status === 204 || response.status === 304 || head;
  if (nullBody || lease === undefined) lease?.release();
  // A stream's length is unknown to Deno.serve (it would send chunks): the app's body goes with its length.
  if (!nullBody && lease !== undefined) headers.set("content-length", String(response.body.length));
  const body = nullBody
    ? null
    : lease === undefined
    ? response.body as Uint8Array<ArrayBuffer>
    : leasedBody(response.body, lease, write);
  return new Response(body, {
    status: response.status < 200 || response.status > 599 ? 502 : response.status,
    // A reason phrase Response refuses (a control byte: the app's own HTTP/1 parser reads any): none.
    statusText: REASON.test(response.statusText) ? response.statusText : "",
    headers,
  });
}

/** A reason phrase as the Fetch standard allows it: tab, space, visible ASCII, obs-text. */
const REASON = /^[\t\x20-\x7e\x80-\xff]*$/;
