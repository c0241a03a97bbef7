/**
 * A store with a long forwarding history, as a month of `dev` leaves it: events a few seconds apart, most
 * delivered at once, some after retries, some given up (and some of those replayed days later), waits for
 * an app that did not listen, events with two targets, replays to another URL, events not forwarded, and
 * the newest still pending. Records are in the log in the order their attempts ended (a late replay far
 * after its event), with ids made at their start times, as `dev` and `replay` write them. For the
 * inspector's tests (held to the whole-log oracle) and its bench.
 * @module
 */
import { DELIVERY_VERSION, type DeliveryRecord, targetNameOf } from "../src/event/delivery.ts";
import { createIdFactory } from "../src/event/id.ts";
import { buildEvent, type CapturedEvent, eventLine } from "../src/event/record.ts";
import { type StorePaths, storePaths } from "../src/store/paths.ts";

/** The forward target's URL and name (one plain target: records name it after its URL). */
export const APP_URL = "http://127.0.0.1:3000/hook";
/** The forward target's name. */
export const APP: string = targetNameOf(APP_URL);
const OTHER_URL = "http://127.0.0.1:4000/x";
const enc = new TextEncoder();

/** What {@linkcode writeDeliveryHistory} wrote. */
export interface DeliveryHistory {
  paths: StorePaths;
  /** Events written. */
  events: number;
  /** Delivery records (attempts) written. */
  attempts: number;
}

interface Planned {
  start: number;
  end: number;
  record: Omit<DeliveryRecord, "id">;
}

/** The attempts of event `i` (arrived at `t`), in the order they start. */
function plan(e: CapturedEvent, i: number, t: number, newest: boolean): Planned[] {
  if (e.forward === undefined || newest) return [];
  const out: Planned[] = [];
  const add = (
    after: number,
    o: Partial<DeliveryRecord> & Pick<DeliveryRecord, "outcome">,
    target = APP,
    url = APP_URL,
  ) => {
    const start = t + after;
    const { outcome, ...more } = o;
    const delivered = outcome === "delivered";
    out.push({
      start,
      end: start + 5,
      record: {
        v: DELIVERY_VERSION,
        event: e.id,
        endpoint: e.endpoint,
        source: "forward",
        target,
        url,
        method: "POST",
        attempt: out.filter((p) => p.record.target === target).length + 1,
        startedAt: new Date(start).toISOString(),
        durationMs: 5,
        outcome, // where dev writes it: before the answer
        ...(o.refused ? { error: "connection refused" } : {
          status: delivered ? 200 : 503,
          statusText: delivered ? "OK" : "Service Unavailable",
          headers: [["content-type", "application/json"]],
          body: delivered ? '{"ok":true,"note":"outcome \\"failed\\" is text here"}' : '{"error":"busy"}',
          bodyEncoding: "utf8",
          bodySize: delivered ? 50 : 16,
        }),
        ...more,
      } as Omit<DeliveryRecord, "id">,
    });
  };
  const kind = i % 10;
  if (i % 50 === 23) { // nothing listened yet, no attempt spent: it waits (pending)
    add(50, { outcome: "retrying", refused: true });
    add(3_050, { outcome: "retrying", refused: true });
    return out;
  }
  if (i % 25 === 3) add(50, { outcome: "retrying", refused: true }); // nothing listened yet
  if (kind <= 5) add(100, { outcome: "delivered" });
  else if (kind <= 7) {
    add(100, { outcome: "retrying" });
    add(1_100, { outcome: "retrying" });
    add(5_100, { outcome: "delivered" });
  } else {
    for (let k = 0; k < 4; k++) add(100 + k * 2_000, { outcome: "retrying" });
    add(10_100, { outcome: "failed" }); // given up
    // Every other given-up event is replayed days later; some of those fail again.
    if (i % 20 === 9) {
      add(3 * 86_400_000 + i, { outcome: i % 40 === 9 ? "failed" : "delivered", source: "replay" });
    }
  }
  if (e.forward.targets !== undefined) {
    // The second target of a two-target event: delivered, or still retrying when the history ends (the
    // event is then retrying: its first target has it).
    add(200, { outcome: i % 3 === 0 ? "retrying" : "delivered" }, "audit", "http://127.0.0.1:3001/audit");
  }
  if (i % 50 === 7) add(86_400_000, { outcome: "delivered", source: "replay" }, "127.0.0.1:4000", OTHER_URL);
  return out;
}

/**
 * Writes a store of `events` events, each `spacingMs` apart and ending `endAgoMs` before now, and their
 * delivery records, into `dir/.hooktap` (streamed: memory holds the records of the history, not the lines).
 */
export async function writeDeliveryHistory(
  dir: string,
  options: { events: number; spacingMs?: number; endAgoMs?: number },
): Promise<DeliveryHistory> {
  const paths = storePaths(`${dir}/.hooktap`);
  await Deno.mkdir(paths.dir, { recursive: true });
  const spacing = options.spacingMs ?? 10_000;
  const first = Date.now() - (options.endAgoMs ?? 60_000) - options.events * spacing;
  const newEvent = createIdFactory("evt");
  let planned: Planned[] = [];
  {
    using file = await Deno.open(paths.events, { write: true, create: true, truncate: true });
    let text = "";
    for (let i = 0; i < options.events; i++) {
      const t = first + i * spacing;
      const e = buildEvent({
        id: newEvent(new Date(t)),
        endpoint: i % 2 ? "github" : "stripe",
        receivedAt: new Date(t),
        method: "POST",
        path: i % 2 ? "/hooks/github" : "/hooks/stripe",
        query: "",
        headers: [["content-type", "application/json"], ["user-agent", "GitHub-Hookshot/abc"]],
        body: enc.encode(JSON.stringify({ n: i, action: i % 2 ? "opened" : "closed" })),
        remoteAddr: "127.0.0.1",
      });
      if (i % 20 !== 18) { // not forwarded: no rule took it
        e.forward = i % 20 === 10
          ? { to: APP_URL, mode: "queue", targets: [APP, "audit"] }
          : { to: APP_URL, mode: "queue" };
      }
      planned.push(...plan(e, i, t, i >= options.events - 5));
      text += eventLine(e);
      if (text.length > 1 << 20) {
        await file.write(enc.encode(text));
        text = "";
      }
    }
    await file.write(enc.encode(text));
  }
  // Ids in the order attempts started (one factory: monotonic), lines in the order they ended; nothing
  // from after the history's end (a replay planned days after one of its last events).
  const endsAt = first + options.events * spacing;
  planned = planned.filter((p) => p.end <= endsAt);
  planned.sort((a, b) => a.start - b.start);
  const newDelivery = createIdFactory("dlv");
  const ids = planned.map((p) => newDelivery(new Date(p.start)));
  const order = planned.map((_, k) => k).sort((a, b) => planned[a]!.end - planned[b]!.end || a - b);
  {
    using file = await Deno.open(paths.deliveries, { write: true, create: true, truncate: true });
    let text = "";
    for (const k of order) {
      const p = planned[k]!;
      const { v, ...rest } = p.record; // `v`, then the id, then the rest: the order dev writes
      text += JSON.stringify({ v, id: ids[k], ...rest }) + "\n";
      if (text.length > 1 << 20) {
        await file.write(enc.encode(text));
        text = "";
      }
    }
    await file.write(enc.encode(text));
  }
  return { paths, events: options.events, attempts: planned.length };
}
