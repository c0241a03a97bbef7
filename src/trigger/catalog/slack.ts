/**
 * Slack: Events API callbacks (JSON), interactivity payloads and slash
 * commands (form bodies), and the URL verification, with the headers
 * Slack sends (`X-Slack-Request-Timestamp`, `X-Slack-Signature`).
 * @module
 */
import { digits, randomText, unix } from "../_ids.ts";
import type { BuildContext, Draft, TriggerCatalog } from "../types.ts";

type Obj = Record<string, unknown>;
const TEAM = "T0HOOKTAP";
const USER = "U061F7AUR";
const CHANNEL = "C0LAN2Q65";

function _ts(ctx: BuildContext): string {
  return `${unix(ctx.now)}.${String(digits(6))}`;
}

function _callback(ctx: BuildContext, event: Obj): Obj {
  return {
    token: "Jhj5dZrVaK7ZwHHjRyZWjbDl",
    team_id: TEAM,
    api_app_id: "A0HOOKTAP",
    event,
    type: "event_callback",
    event_id: `Ev0${randomText(8).toUpperCase()}`,
    event_time: unix(ctx.now),
    authorizations: [{ team_id: TEAM, user_id: "U0HOOKBOT", is_bot: true, is_enterprise_install: false }],
    is_ext_shared_channel: false,
    event_context: `4-${randomText(40)}`,
  };
}

const JSON_EVENTS: Record<string, (ctx: BuildContext) => Obj> = {
  "url_verification": () => ({
    token: "Jhj5dZrVaK7ZwHHjRyZWjbDl",
    challenge: randomText(48),
    type: "url_verification",
  }),
  "message": (c) =>
    _callback(c, {
      type: "message",
      channel: CHANNEL,
      user: USER,
      text: "Hello world",
      ts: c.id("slack.ts", () => _ts(c)),
      event_ts: c.id("slack.ts", () => _ts(c)),
      channel_type: "channel",
    }),
  "app_mention": (c) =>
    _callback(c, {
      type: "app_mention",
      user: USER,
      text: "<@U0HOOKBOT> is it everything a river should be?",
      ts: c.id("slack.ts", () => _ts(c)),
      channel: CHANNEL,
      event_ts: c.id("slack.ts", () => _ts(c)),
    }),
  "reaction_added": (c) =>
    _callback(c, {
      type: "reaction_added",
      user: USER,
      reaction: "thumbsup",
      item_user: "U0G9QF9C6",
      item: { type: "message", channel: CHANNEL, ts: c.id("slack.ts", () => _ts(c)) },
      event_ts: _ts(c),
    }),
  "app_home_opened": (c) =>
    _callback(c, {
      type: "app_home_opened",
      user: USER,
      channel: "D0LAN2Q65",
      tab: "home",
      event_ts: _ts(c),
    }),
  "member_joined_channel": (c) =>
    _callback(c, {
      type: "member_joined_channel",
      user: USER,
      channel: CHANNEL,
      channel_type: "C",
      team: TEAM,
      event_ts: _ts(c),
    }),
};

const FORM_EVENTS: Record<string, (ctx: BuildContext) => [string, string][]> = {
  "block_actions": (c) => [["payload", JSON.stringify(_interaction(c, "block_actions"))]],
  "view_submission": (c) => [["payload", JSON.stringify(_interaction(c, "view_submission"))]],
  "shortcut": (c) => [["payload", JSON.stringify(_interaction(c, "shortcut"))]],
  "slash_command": () => [
    ["token", "gIkuvaNzQIHg97ATvDxqgjtO"],
    ["team_id", TEAM],
    ["team_domain", "hooktap"],
    ["channel_id", CHANNEL],
    ["channel_name", "general"],
    ["user_id", USER],
    ["user_name", "jenny"],
    ["command", "/deploy"],
    ["text", "staging"],
    ["api_app_id", "A0HOOKTAP"],
    ["is_enterprise_install", "false"],
    ["response_url", `https://hooks.slack.com/commands/${TEAM}/${digits(13)}/${randomText(24)}`],
    ["trigger_id", `${digits(13)}.${digits(12)}.${randomText(32, "0123456789abcdef")}`],
  ],
};

function _interaction(c: BuildContext, type: string): Obj {
  const base: Obj = {
    type,
    team: { id: TEAM, domain: "hooktap" },
    user: { id: USER, username: "jenny", name: "jenny", team_id: TEAM },
    api_app_id: "A0HOOKTAP",
    token: "Jhj5dZrVaK7ZwHHjRyZWjbDl",
    trigger_id: `${digits(13)}.${digits(12)}.${randomText(32, "0123456789abcdef")}`,
  };
  if (type === "shortcut") return { ...base, callback_id: "open_ticket", action_ts: _ts(c) };
  if (type === "view_submission") {
    return {
      ...base,
      view: {
        id: "V0HOOKTAP",
        type: "modal",
        callback_id: "ticket_modal",
        state: { values: { title: { title_input: { type: "plain_text_input", value: "Printer on fire" } } } },
        hash: `${unix(c.now)}.${randomText(8)}`,
      },
    };
  }
  return {
    ...base,
    container: { type: "message", message_ts: c.id("slack.ts", () => _ts(c)), channel_id: CHANNEL },
    channel: { id: CHANNEL, name: "general" },
    response_url: `https://hooks.slack.com/actions/${TEAM}/${digits(13)}/${randomText(24)}`,
    actions: [{
      type: "button",
      action_id: "approve",
      block_id: "decision",
      text: { type: "plain_text", text: "Approve", emoji: true },
      value: "approve_123",
      action_ts: _ts(c),
    }],
  };
}

function build(event: string, ctx: BuildContext): Draft {
  const form = FORM_EVENTS[event];
  const headers: [string, string][] = [
    ["User-Agent", "Slackbot 1.0 (+https://api.slack.com/robots)"],
    ["Accept-Encoding", "gzip,deflate"],
    ["Accept", "*/*"],
    ["X-Slack-Signature", ""],
    ["X-Slack-Request-Timestamp", ""],
  ];
  if (form !== undefined) {
    return {
      headers: [...headers, ["Content-Type", "application/x-www-form-urlencoded"]],
      body: { kind: "form", value: form(ctx) },
    };
  }
  return {
    headers: [...headers, ["Content-Type", "application/json"]],
    body: { kind: "json", value: JSON_EVENTS[event]!(ctx) },
  };
}

/** Slack's catalog. */
export const catalog: TriggerCatalog = {
  provider: "slack",
  source: "hand-written",
  events: [...Object.keys(JSON_EVENTS), ...Object.keys(FORM_EVENTS)],
  sequences: {
    conversation: {
      description: "a message, then a reaction to it (the reaction's item is the message)",
      steps: [{ event: "message" }, { event: "reaction_added" }],
    },
  },
  retries: [0, 60, 300],
  retriesNote: "Slack retries 3 times: at once, after 1 minute, after 5 minutes (X-Slack-Retry-Num)",
  retryHeaders: (n) => [["X-Slack-Retry-Num", String(n)], ["X-Slack-Retry-Reason", "http_timeout"]],
  build,
};
