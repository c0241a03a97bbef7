/**
 * Zoom: meeting, recording and participant events and the endpoint URL
 * validation, bodies as Zoom's webhook reference shows them.
 * @module
 */
import { digits, randomText, uuid } from "../_ids.ts";
import type { BuildContext, Draft, TriggerCatalog } from "../types.ts";

type Obj = Record<string, unknown>;
const ACCOUNT = "AAAAAABBBB";

function _meeting(c: BuildContext, extra: Obj = {}): Obj {
  return {
    id: Number(c.id("zoom.meeting", () => String(digits(11)))),
    uuid: c.id("zoom.uuid", () => `${randomText(22)}==`),
    host_id: "z8yCxjabcdefghijklmnop",
    topic: "Weekly sync",
    type: 2,
    start_time: c.now.toISOString().replace(/\.\d{3}Z$/, "Z"),
    timezone: "America/Los_Angeles",
    duration: 30,
    ...extra,
  };
}

const EVENTS: Record<string, (c: BuildContext) => Obj> = {
  "endpoint.url_validation": () => ({ plainToken: randomText(22) }),
  "meeting.created": (c) => ({ account_id: ACCOUNT, operator: "jenny@example.com", object: _meeting(c) }),
  "meeting.started": (c) => ({ account_id: ACCOUNT, object: _meeting(c) }),
  "meeting.participant_joined": (c) => ({
    account_id: ACCOUNT,
    object: _meeting(c, {
      participant: {
        user_id: "16778240",
        user_name: "Jenny Rosen",
        id: "iFxeBPYun6SAiWUzBcEkX",
        participant_uuid: uuid(),
        join_time: c.now.toISOString().replace(/\.\d{3}Z$/, "Z"),
        email: "jenny@example.com",
      },
    }),
  }),
  "meeting.ended": (c) => ({
    account_id: ACCOUNT,
    object: _meeting(c, { end_time: c.now.toISOString().replace(/\.\d{3}Z$/, "Z") }),
  }),
  "recording.completed": (c) => ({
    account_id: ACCOUNT,
    object: _meeting(c, {
      total_size: 529758,
      recording_count: 1,
      share_url: "https://example.zoom.us/rec/share/abc",
      recording_files: [{
        id: uuid(),
        meeting_id: c.id("zoom.uuid", () => `${randomText(22)}==`),
        file_type: "MP4",
        file_size: 529758,
        download_url: "https://example.zoom.us/rec/download/abc",
        status: "completed",
        recording_type: "shared_screen_with_speaker_view",
      }],
    }),
    download_token: randomText(64),
  }),
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
    body: { kind: "json", value: { event, payload: EVENTS[event]!(ctx), event_ts: ctx.now.getTime() } },
  };
}

/** Zoom's catalog. */
export const catalog: TriggerCatalog = {
  provider: "zoom",
  source: "hand-written",
  events: Object.keys(EVENTS),
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
  retries: [300, 1800, 5400],
  retriesNote: "Zoom retries 3 times: after 5 minutes, 30 minutes and 90 minutes",
  build,
};
