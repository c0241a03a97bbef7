/**
 * Slack: Events API callbacks (JSON; every event type of `@slack/types`'
 * `SlackEvent`, generated into slack/events.gen.ts, in Slack's
 * `event_callback` envelope), interactivity payloads and slash commands
 * (form bodies, written by hand: @slack/types declares none), and the URL
 * verification, with the headers Slack sends (`X-Slack-Request-Timestamp`,
 * `X-Slack-Signature`).
 * @module
 */
import { digits, randomText, unix } from "../_ids.ts";
import type { BuildContext, Draft, EntryOrigin, TriggerCatalog } from "../catalog_types.ts";
import { stampNow } from "../_stamp.ts";
import { SLACK_EVENTS, SLACK_SOURCE } from "./samples/events.gen.ts";

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

/** A generated Events API event with this run's message ts (a reaction's item is the message). */
function _generated(name: string, c: BuildContext): Obj {
  const ts = c.id("slack.ts", () => _ts(c));
  const fill = (v: unknown): unknown =>
    v === "{{slack.ts}}"
      ? ts
      : Array.isArray(v)
      ? v.map(fill)
      : v !== null && typeof v === "object"
      ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x)]))
      : v;
  return _callback(c, fill(stampNow(SLACK_EVENTS[name]!.event, c.now)) as Obj);
}

/** `message`: what Slack sends for a message in a channel (`message.channels`). */
const ALIASES: Record<string, string> = { message: "message.channels" };

const JSON_EVENTS: Record<string, (ctx: BuildContext) => Obj> = {
  "url_verification": () => ({
    token: "Jhj5dZrVaK7ZwHHjRyZWjbDl",
    challenge: randomText(48),
    type: "url_verification",
  }),
};

const FORM_EVENTS: Record<string, (ctx: BuildContext) => [string, string][]> = {
  "block_actions": (c) => [["payload", JSON.stringify(_interaction(c, "block_actions"))]],
  "view_submission": (c) => [["payload", JSON.stringify(_interaction(c, "view_submission"))]],
  "shortcut": (c) => [["payload", JSON.stringify(_interaction(c, "shortcut"))]],
  "message_action": (c) => [["payload", JSON.stringify(_interaction(c, "message_action"))]],
  "block_suggestion": (c) => [["payload", JSON.stringify(_interaction(c, "block_suggestion"))]],
  "view_closed": (c) => [["payload", JSON.stringify(_interaction(c, "view_closed"))]],
  "interactive_message": (c) => [["payload", JSON.stringify(_interaction(c, "interactive_message"))]],
  "dialog_submission": (c) => [["payload", JSON.stringify(_interaction(c, "dialog_submission"))]],
  "dialog_cancellation": (c) => [["payload", JSON.stringify(_interaction(c, "dialog_cancellation"))]],
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
  const message = {
    type: "message",
    user: USER,
    ts: c.id("slack.ts", () => _ts(c)),
    text: "The printer is on fire",
  };
  const response_url = `https://hooks.slack.com/actions/${TEAM}/${digits(13)}/${randomText(24)}`;
  if (type === "shortcut") return { ...base, callback_id: "open_ticket", action_ts: _ts(c) };
  if (type === "message_action") {
    return {
      ...base,
      callback_id: "file_ticket",
      action_ts: _ts(c),
      message_ts: message.ts,
      channel: { id: CHANNEL, name: "general" },
      message,
      response_url,
    };
  }
  if (type === "block_suggestion") {
    return {
      ...base,
      container: { type: "view", view_id: "V0HOOKTAP" },
      action_id: "assignee",
      block_id: "assign",
      value: "jen",
      view: { id: "V0HOOKTAP", type: "modal", callback_id: "ticket_modal" },
    };
  }
  if (type === "view_closed") {
    return {
      ...base,
      view: { id: "V0HOOKTAP", type: "modal", callback_id: "ticket_modal", state: { values: {} } },
      is_cleared: false,
    };
  }
  if (type === "interactive_message") {
    return {
      ...base,
      actions: [{ name: "approve", type: "button", value: "approve_123" }],
      callback_id: "approval",
      channel: { id: CHANNEL, name: "general" },
      action_ts: _ts(c),
      message_ts: message.ts,
      attachment_id: "1",
      original_message: message,
      response_url,
    };
  }
  if (type === "dialog_submission" || type === "dialog_cancellation") {
    return {
      ...base,
      callback_id: "ticket_dialog",
      state: "",
      channel: { id: CHANNEL, name: "general" },
      action_ts: _ts(c),
      response_url,
      ...(type === "dialog_submission" ? { submission: { title: "Printer on fire", urgency: "high" } } : {}),
    };
  }
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
  const hand = JSON_EVENTS[event];
  return {
    headers: [...headers, ["Content-Type", "application/json"]],
    body: { kind: "json", value: hand !== undefined ? hand(ctx) : _generated(ALIASES[event] ?? event, ctx) },
  };
}

function entryOrigin(event: string): EntryOrigin | undefined {
  const generated = SLACK_EVENTS[ALIASES[event] ?? event];
  if (generated !== undefined) {
    return { from: `@slack/types ${generated.type}`, ...(ALIASES[event] ? { alias: ALIASES[event] } : {}) };
  }
  return event in JSON_EVENTS || event in FORM_EVENTS ? { from: "hand-written" } : undefined;
}

/** Slack's catalog. */
export const catalog: TriggerCatalog = {
  provider: "slack",
  source: SLACK_SOURCE,
  entryOrigin,
  events: [
    ...Object.keys(JSON_EVENTS),
    ...Object.keys(ALIASES),
    ...Object.keys(SLACK_EVENTS),
    ...Object.keys(FORM_EVENTS),
  ],
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
