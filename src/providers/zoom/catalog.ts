/**
 * Zoom: every webhook event `@zoom/rivet` declares (zoom/events.gen.ts, a
 * payload sampled from each event's declared type, the run's ids put in so a
 * flow's events name the same meeting), and the endpoint URL validation.
 * @module
 */
import { digits, randomText } from "../_ids.ts";
import type { BuildContext, Draft, EntryOrigin, TriggerCatalog } from "../catalog_types.ts";
import { stampNow } from "../_stamp.ts";
import { ZOOM_EVENTS, ZOOM_SOURCE } from "./samples/events.gen.ts";

type Obj = Record<string, unknown>;
const ACCOUNT = "AAAAAABBBB";
const HOST = "z8yCxjabcdefghijklmnop";

/**
 * The generated payload of `event` with this run's ids: the account, and the object's `id`, `uuid` and
 * `host_id` (a meeting's, a webinar's, ...), so a flow's events name the same meeting. Each keeps the
 * JSON type rivet declares for it (a meeting id is a number in some events, a string in others).
 */
function _generated(event: string, c: BuildContext): Obj {
  const body = stampNow(ZOOM_EVENTS[event]!.body, c.now) as Obj;
  const payload = body.payload as Obj | undefined;
  if (payload === undefined || typeof payload !== "object") return body;
  if (typeof payload.account_id === "string") payload.account_id = ACCOUNT;
  const object = payload.object as Obj | undefined;
  if (object !== null && typeof object === "object") {
    const id = c.id("zoom.meeting", () => String(digits(11)));
    if (typeof object.id === "number") object.id = Number(id);
    if (typeof object.id === "string" && /^(meeting|webinar|recording)\./.test(event)) object.id = id;
    if (typeof object.uuid === "string") object.uuid = c.id("zoom.uuid", () => `${randomText(22)}==`);
    if (typeof object.host_id === "string") object.host_id = HOST;
  }
  return body;
}

/** Events Zoom sends that @zoom/rivet declares no type for. */
const EVENTS: Record<string, (c: BuildContext) => Obj> = {
  "endpoint.url_validation": () => ({ plainToken: randomText(22) }),
};

function build(event: string, ctx: BuildContext): Draft {
  return {
    headers: [
      ["Content-Type", "application/json; charset=utf-8"],
      ["User-Agent", "Zoom Marketplace/1.0a"],
      ["x-zm-request-timestamp", ""],
      ["x-zm-signature", ""],
      ["x-zm-trackingid", `v=2.0&s=${randomText(40)}`],
    ],
    body: {
      kind: "json",
      value: EVENTS[event] !== undefined
        ? { event, payload: EVENTS[event](ctx), event_ts: ctx.now.getTime() }
        : _generated(event, ctx),
    },
  };
}

function entryOrigin(event: string): EntryOrigin | undefined {
  if (EVENTS[event] !== undefined) return { from: "hand-written" };
  const generated = ZOOM_EVENTS[event];
  return generated === undefined ? undefined : { from: `@zoom/rivet ${generated.alias}` };
}

/** Zoom's catalog. */
export const catalog: TriggerCatalog = {
  provider: "zoom",
  source: ZOOM_SOURCE,
  entryOrigin,
  events: [...new Set([...Object.keys(EVENTS), ...Object.keys(ZOOM_EVENTS)])],
  sequences: {
    meeting: {
      description: "a meeting created, started, joined, ended, its recording completed (same meeting)",
      steps: [
        { event: "meeting.created" },
        { event: "meeting.started" },
        { event: "meeting.participant_joined" },
        { event: "meeting.ended" },
        { event: "recording.completed" },
      ],
    },
  },
  // developers.zoom.us/blog/webhook-delays: "The first retry will be sent 5 minutes after the initial
  // notification delivery attempt, second retry ... 20 minutes after the first retry ... and third retry
  // ... 60 minutes after the second retry".
  retries: [300, 1200, 3600],
  retriesNote:
    "Zoom retries 3 times: 5 minutes after the first attempt, then 20 and 60 minutes after the previous retry",
  build,
};
