/**
 * The receiver: a web-standard `(Request) => Promise<Response>` function.
 * It matches the request, reads its body with a cap, builds the record and
 * answers 200 only after the store says the record is on disk. No console,
 * no `Deno.exit`, no socket: its store, clock and ids come in as arguments.
 * @module
 */
import type { Endpoint } from "../config/types.ts";
import { createIdFactory, type IdFactory } from "../event/id.ts";
import type { EventSink, Forwarding, ForwardTarget } from "../ports.ts";
import {
  buildEvent,
  type CapturedEvent,
  headerValue,
  type HubMark,
  type VerdictStatus,
} from "../event/record.ts";
import { examineFor, mayAnswer, planAnswer, sendAnswer } from "./answer.ts";
import { readBody, releaseBody } from "./body.ts";
import { bodyErrorAnswer } from "./body_answer.ts";
import { mustClose } from "./closing.ts";
import { mergedHeaders, requestHeaders } from "./headers.ts";
import { createRouter, type Router } from "../route/router.ts";
import { splitUrl } from "./url.ts";
import type { ViewParts } from "../providers/view.ts";
import type { IncomingRequest, RequestInfo } from "./request.ts";

export type { IncomingRequest, RequestInfo } from "./request.ts";

export type { EventSink } from "../ports.ts";

/** What the receiver did with one request, for the activity log. */
export interface RequestOutcome {
  /** When the request arrived. */
  time: Date;
  /** HTTP method. */
  method: string;
  /** URL path. */
  path: string;
  /** Raw query string without `?` (`""` when none). */
  query: string;
  /** HTTP status answered. */
  status: number;
  /** Bytes of body read (0 when it was not read). */
  size: number;
  /** The endpoint matched, when one was. */
  endpoint?: string;
  /** The stored event's id, when it was stored. */
  id?: string;
  /** Methods the path accepts, on a 405. */
  allow?: string[];
  /** Why the request was not stored, on 4xx/5xx other than 404/405. */
  reason?: string;
  /** A 503 because shutdown cut off a body still arriving (not a store failure). */
  cutOff?: boolean;
  /** A relayed request shutdown cut off before the app answered: answered 502, the event is stored. */
  unanswered?: boolean;
  /**
   * A relayed request whose sender hung up before the app answered: nothing reached it (`status` is 499, the
   * "client closed request" of nginx's logs); the event is stored and the app still gets it.
   */
  senderLeft?: boolean;
  /** The sender and event type, when known. */
  provider?: string;
  /** The event type, when known. */
  type?: string;
  /** The signature verdict. */
  verdict?: VerdictStatus;
  /** Why the answer was not the plain 200. */
  answered?: "challenge" | "custom" | "enforce";
  /** The hub's sequence number, for an event from the hub (`dev --hub` prints a batch's lines in its order). */
  hubSeq?: number;
  /**
   * Stored, and no forward target's rule took it: the event's `receivedAt`. The printer of the request's line
   * writes "not forwarded (no rule matched)" after it, so the two cannot part.
   */
  unrouted?: { receivedAt: string };
}

/** Options of {@linkcode createHandler}. */
export interface HandlerOptions {
  /** The endpoints to serve. */
  endpoints: readonly Endpoint[];
  /** A router to match with instead of one built from `endpoints` (`hooktap dev` updates it on a config edit). */
  router?: Pick<Router, "match">;
  /** Where matched requests go. */
  sink: EventSink;
  /**
   * Clock.
   * @default () => new Date()
   */
  now?: () => Date;
  /**
   * Id factory.
   * @default createIdFactory()
   */
  newId?: IdFactory;
  /** Called once per request with what was done. */
  onOutcome?: (outcome: RequestOutcome) => void;
  /**
   * Forwarding: each stored event goes to every target of its endpoint whose
   * rule takes it, queued, or relayed by the endpoint's relay target.
   */
  forward?: {
    targetsOf(endpoint: string): readonly ForwardTarget[];
    /** Chooses the targets of an event whose provider, type and verdict are known; sets its forward mark. */
    route(event: CapturedEvent): readonly ForwardTarget[] | undefined;
    forwarder: Forwarding;
  };
}

/** The receiver's request handler: takes a `Request` (or the same shape from node:http). */
export type Handler = (request: IncomingRequest, info?: RequestInfo) => Promise<Response>;

/** A relay target given an event whose sender hooktap answered itself: delivered in the background. */
const queued = (target: ForwardTarget): ForwardTarget =>
  target.mode === "relay" ? { ...target, mode: "queue" } : target;

/** Body of the 404 answer. */
export const NOT_FOUND_MESSAGE = "No webhook endpoint matched this request.";
/** Body of the 405 answer. */
export const METHOD_NOT_ALLOWED_MESSAGE = "Method not allowed.";

const TEXT = { "content-type": "text/plain; charset=utf-8" };

function text(status: number, body: string, headers: Record<string, string> = {}): Response {
  return new Response(body, { status, headers: { ...TEXT, ...headers } });
}

function peer(info: RequestInfo | undefined): string {
  const addr = info?.remoteAddr;
  if (addr === undefined) return "";
  if (addr.transport === "tcp" || addr.transport === "udp") return addr.hostname;
  return addr.transport;
}

/** The answer to a body that could not be read (too large, over a bound, stalled, cut off, hidden). */
function _bodyRefusal(error: unknown, maxBodySize: number, method: string) {
  return bodyErrorAnswer(error, {
    server: "hooktap",
    taker: "this endpoint",
    maxBodySize,
    maxBodySetting: "maxBodySize in hooktap.config.ts",
    inFlight: (e) =>
      e.kind === "bytes"
        ? "the bound of bytes in flight, server.maxBodyBytesInFlight in hooktap.config.ts"
        : `the bound of ${e.limit} requests waiting for their body, server.maxConnections in hooktap.config.ts`,
    method,
    unreadableFix: "Start hooktap dev with HOOKTAP_STACK=node (and --allow-env=HOOKTAP_STACK) to read them.",
  });
}

/**
 * When the sender's request arrived: at the hub for an event fetched from one (its `receivedAt`, when it is a
 * valid time no later than `time`), else `time`, when dev received it.
 */
export function arrivedAt(hub: HubMark | undefined, time: Date): Date {
  if (hub === undefined) return time;
  const at = Date.parse(hub.receivedAt);
  return Number.isFinite(at) && at <= time.getTime() ? new Date(at) : time;
}

/**
 * Creates the receiver's handler: give it to `Deno.serve`, or call it with
 * a `Request` in a test.
 *
 * @example
 * ```ts
 * import { type CapturedEvent, createHandler, validateConfig } from "@hooktap/hooktap/testing";
 * const seen: CapturedEvent[] = [];
 * const { endpoints } = validateConfig(
 *   { port: 0, endpoints: [{ name: "gh", path: "/gh", method: "POST" }] },
 *   null,
 * );
 * const handler = createHandler({ endpoints, sink: { append: async (e) => void seen.push(e) } });
 * const response = await handler(new Request("http://localhost/gh", { method: "POST", body: "{}" }));
 * console.log(response.status, seen[0]?.body); // 200 "{}"
 * ```
 */
export function createHandler(options: HandlerOptions): Handler {
  const { sink, onOutcome } = options;
  const router = options.router ?? createRouter(options.endpoints);
  const now = options.now ?? (() => new Date());
  const newId = options.newId ?? createIdFactory();

  return async (request, info) => {
    const time = now();
    const { method } = request;
    const { path, query } = splitUrl(request.url);
    const outcome = (o: Omit<RequestOutcome, "time" | "method" | "path" | "query">, response: Response) => {
      onOutcome?.({ time, method, path, query, ...o, ...(info?.hub ? { hubSeq: info.hub.seq } : {}) });
      return response;
    };

    const found = router.match(method, path);
    if (found.kind === "no-endpoint") {
      return outcome({ status: 404, size: 0 }, text(404, NOT_FOUND_MESSAGE));
    }
    if (found.kind === "method-not-allowed") {
      const allow = found.allow.join(", ");
      return outcome(
        { status: 405, size: 0, allow: found.allow },
        text(405, METHOD_NOT_ALLOWED_MESSAGE, { allow }),
      );
    }
    const endpoint = found.endpoint.name;
    const maxBodySize = found.endpoint.maxBodySize;
    const headers = requestHeaders(request);

    let body: Uint8Array;
    try {
      body = await readBody(request, maxBodySize, headerValue(headers, "content-length") ?? null, {
        chunked: headerValue(headers, "transfer-encoding") !== undefined,
        cutOff: info?.cutOff,
        budget: info?.budget,
        stall: info?.stall,
      });
    } catch (error) {
      const { status, reason, response, cutOff } = _bodyRefusal(error, maxBodySize, method);
      // An answer before the body's end closes its connection, as the listener does it (./closing.ts).
      const answer = info?.closing !== undefined && mustClose(response)
        ? await info.closing(response)
        : response;
      return outcome({ status, size: 0, endpoint, reason, ...(cutOff ? { cutOff } : {}) }, answer);
    }

    try {
      const id = newId(time);
      const event = buildEvent({
        id,
        endpoint,
        receivedAt: time,
        method,
        path,
        query,
        headers,
        body,
        remoteAddr: peer(info),
      });
      // The mark's place in the record; the targets are chosen once the verdict is known.
      const first = options.forward?.targetsOf(endpoint)[0];
      if (first !== undefined) event.forward = { to: first.to, mode: first.mode };
      if (found.params !== undefined) event.params = found.params;
      const merged = mergedHeaders(request, headers);
      if (merged !== undefined) {
        event.v = 2; // a v2 field: see CapturedEvent.merged
        event.merged = merged;
      }
      if (info?.hub !== undefined) {
        event.v = 2; // a v2 field: see CapturedEvent.hub
        event.hub = info.hub;
      }
      const viewed: ViewParts = {
        method,
        path,
        query,
        headers,
        body,
        // A signature's timestamp is judged against when the request arrived where the sender sent it:
        // at the hub for an event fetched from one (it may wait there for hours while dev is away).
        receivedAt: arrivedAt(info?.hub, time),
      };
      // The sender called the channel's URL (Twilio signs it): the hub's Host, then `/c/<channel>` and the path.
      if (info?.hub !== undefined) viewed.pathPrefix = `/c/${info.hub.channel}`;
      if (event.bodyEncoding === "utf8") viewed.bodyText = event.body;
      const examined = await examineFor(found.endpoint, viewed, event);
      // Most requests get the plain 200: nothing to plan.
      const answer = mayAnswer(found.endpoint, examined)
        ? await planAnswer(found.endpoint, event, examined)
        : undefined;
      const chosen = first === undefined ? undefined : options.forward!.route(event);
      const marks: Pick<RequestOutcome, "provider" | "type" | "verdict" | "unrouted"> = {};
      if (event.provider !== undefined) marks.provider = event.provider;
      if (event.type !== undefined) marks.type = event.type;
      if (event.verdict !== undefined) marks.verdict = event.verdict.status;
      if (chosen?.length === 0) marks.unrouted = { receivedAt: event.receivedAt }; // not on a store failure's 503
      try {
        await sink.append(event);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        return outcome(
          { status: 503, size: body.length, endpoint, reason },
          text(503, `hooktap could not save this event: ${reason}. Nothing was stored; retry later.`, {
            "retry-after": "5",
          }),
        );
      }
      if (answer !== undefined) {
        // hooktap answers itself (a challenge, enforce's 401, the endpoint's custom response); a forward
        // target still gets the event, queued, since the sender is not waiting on the app.
        for (const target of chosen ?? []) options.forward!.forwarder.enqueue(event, queued(target));
        return outcome(
          { status: answer.status, size: body.length, endpoint, id, ...marks, answered: answer.source },
          // Never `request.signal` when the listener gives a cut-off: Deno.serve prints a warning about its
          // legacy abort the first time a handler reads it. A delay then ends on shutdown; a sender that hung
          // up meanwhile gets its answer written to a closed connection.
          await sendAnswer(answer, id, info?.cutOff ?? request.signal),
        );
      }
      if (chosen !== undefined && chosen.length > 0) {
        let relay: ForwardTarget | undefined;
        for (const target of chosen) {
          if (target.mode === "relay") relay = target;
          else options.forward!.forwarder.enqueue(event, target);
        }
        if (relay !== undefined) {
          const { answer: a, cut } = await _relayAnswer(options.forward!, event, relay, info, request);
          return outcome({ status: a.status, size: body.length, endpoint, id, ...marks, ...cut }, a);
        }
      }
      // No relay target took it (no rule matched, or queue targets only): hooktap's own answer.
      return outcome({ status: 200, size: body.length, endpoint, id, ...marks }, _ownOk(event));
    } finally {
      info?.budget?.release(body.length);
      releaseBody(body);
    }
  };
}

/**
 * hooktap's own `200` to a stored event: `{"ok":true,"id":...}`. To `hooktap trigger` (its events are marked
 * as appended), the verdict too: it reads it here instead of the store. Never to other senders: a stranger
 * behind a tunnel learns nothing of the signature check.
 */
function _ownOk(event: CapturedEvent): Response {
  const verdict = event.trigger === undefined ? undefined : event.verdict?.status;
  const ok = new Response(
    verdict === undefined
      ? `{"ok":true,"id":"${event.id}"}`
      : `{"ok":true,"id":"${event.id}","verdict":"${verdict}"}`,
  );
  // Headers set on the response rather than passed to its constructor: the same answer for ~5 µs less CPU
  // per request in Deno 2.9 (BENCHMARKS.md).
  ok.headers.set("content-type", "application/json");
  ok.headers.set("x-hooktap-event-id", event.id);
  return ok;
}

/** Resolves to `what` when `signal` aborts; `off()` stops listening. */
function _whenAborted<T>(signal: AbortSignal | undefined, what: T): { on: Promise<T>; off: () => void } {
  if (signal === undefined) return { on: new Promise<T>(() => {}), off: () => {} };
  let fire: () => void = () => {};
  const on = new Promise<T>((resolve) => {
    fire = () => resolve(what);
    if (signal.aborted) fire();
    else signal.addEventListener("abort", fire, { once: true });
  });
  return { on, off: () => signal.removeEventListener("abort", fire) };
}

/**
 * The relay's answer; a 502 naming the stored event when shutdown cuts it off first (`cut`: the outcome's
 * `unanswered`): dev's stop must not wait for an app that does not answer, nor leave the sender without one.
 * A sender that hangs up first (the request's signal) is answered no more (`cut`: `senderLeft`); the
 * relay goes on, and its record says the answer reached no one.
 */
async function _relayAnswer(
  { forwarder }: { forwarder: Pick<Forwarding, "relay"> },
  event: CapturedEvent,
  target: ForwardTarget,
  info: RequestInfo | undefined,
  request: Pick<IncomingRequest, "signal">,
): Promise<{ answer: Response; cut?: { unanswered: true } | { senderLeft: true; status: 499 } }> {
  // request.signal: dev runs with --unstable-no-legacy-abort (every launcher), where reading it prints no
  // warning and it aborts only when the sender hangs up.
  const left = request.signal;
  const cutOff = info?.cutOff;
  const relayed = forwarder.relay(event, target, left, cutOff);
  if (cutOff === undefined && left === undefined) return { answer: await relayed };
  const stopped = _whenAborted(cutOff, "cut" as const);
  const gone = _whenAborted(left, "left" as const);
  const first = await Promise.race([
    relayed.then(() => "answered" as const, () => "answered" as const),
    stopped.on,
    gone.on,
  ]);
  stopped.off();
  gone.off();
  if (first === "answered") return { answer: await relayed };
  relayed.then((r) => r.body?.cancel(), () => {}); // answered late, or never: nobody reads it
  if (first === "left") {
    return { answer: new Response(null, { status: 499 as number }), cut: { senderLeft: true, status: 499 } };
  }
  const answer = new Response(
    // The words of src/send/answer_note.ts's stoppedRelayText (the record's views say them again).
    `hooktap dev stopped before ${target.to} answered this relayed request. The event is stored as ${event.id}.\n`,
    {
      status: 502,
      headers: {
        "content-type": "text/plain; charset=utf-8",
        "x-hooktap-event-id": event.id,
        connection: "close",
      },
    },
  );
  return { answer, cut: { unanswered: true } };
}
