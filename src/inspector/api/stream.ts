/**
 * `GET /api/stream`: Server-Sent Events, one `event` message (a row of the list) per newly stored event that
 * passes the filters, in the order stored. Each row's delivery state is read before it is sent (the index
 * refreshed, then the row's summary read from a mark taken before the event arrived: a few lines).
 * @module
 */
import { compileFilter, type EventFilter } from "../../query/filter.ts";
import { SECURITY_HEADERS } from "../guard.ts";
import type { LiveSource } from "../live.ts";
import type { DeliveryIndex } from "../delivery_index.ts";
import { type DeliverySubject, subjectOf } from "../delivery_fold.ts";
import { type EventSummary, summarize } from "./summary.ts";

/** Rows a stream's reader may lag behind (sent and not read, or waiting for their states) before it ends. */
const MAX_BEHIND = 10_000;

/** The live stream of the rows `query` passes (its `delivery` tested once each row's state is read). */
export function liveStream(
  query: EventFilter,
  o: { deliveries: DeliveryIndex; live: LiveSource | undefined; signal: AbortSignal },
): Response {
  const { delivery: want, ...rest } = query;
  const filter = compileFilter(rest);
  const encoder = new TextEncoder();
  let off = () => {};
  let ping: ReturnType<typeof setInterval> | undefined;
  let closed = false;
  const close = () => {
    closed = true;
    off();
    clearInterval(ping);
  };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const end = () => {
        close();
        try {
          controller.close();
        } catch { /* already closed */ }
      };
      const send = (text: string) => {
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          close();
        }
        // A reader that does not read: its rows are not kept waiting without end (its EventSource
        // connects again; a reload lists what it missed).
        if ((controller.desiredSize ?? 0) < -MAX_BEHIND) end();
      };
      send("retry: 1000\n: live\n\n");
      // Each row's delivery state is read before it is sent, in the order stored: the rows that
      // arrive meanwhile wait as rows (no body), and go out together after one read of their states.
      let waiting: { summary: EventSummary; subject: DeliverySubject }[] = [];
      let sending = false;
      const drain = async () => {
        sending = true;
        try {
          while (waiting.length > 0 && !closed) {
            const rows = waiting;
            waiting = [];
            await o.deliveries.refresh();
            const states = await o.deliveries.deliveriesOf(rows.map((r) => r.subject), { keep: true });
            for (const { summary, subject } of rows) {
              summary.delivery = states.get(subject.id)!.state;
              if (want !== undefined && summary.delivery !== want) continue;
              send(`event: event\ndata: ${JSON.stringify(summary)}\n\n`);
            }
          }
        } catch {
          end(); // the log could not be read: the page's EventSource connects again
        } finally {
          sending = false;
        }
      };
      off = o.live?.subscribe((event) => {
        if (closed || !filter.event(event)) return;
        const subject = subjectOf(event);
        // dev's own feed tells an event before it can be forwarded: no record of it to look for.
        if (o.live!.beforeDeliveries) o.deliveries.track(subject);
        waiting.push({ summary: summarize(event, "none"), subject });
        if (waiting.length > MAX_BEHIND) return end();
        if (!sending) void drain();
      }) ?? (() => {});
      ping = setInterval(() => send(": ping\n\n"), 15_000);
      o.signal.addEventListener("abort", end, { once: true });
    },
    cancel: close,
  });
  return new Response(body, {
    headers: {
      ...SECURITY_HEADERS,
      "content-type": "text/event-stream; charset=utf-8",
      "x-accel-buffering": "no",
    },
  });
}
