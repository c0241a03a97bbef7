/**
 * Discord: interactions (PING, a slash command, a button click, an
 * autocomplete and a modal submit, written by hand) and webhook events
 * (every event of discord-api-types' APIWebhookEventBody and the webhook
 * PING, discord/events.gen.ts; the Social SDK events discord-interactions'
 * WebhookEventType lists and discord-api-types does not declare, written by
 * hand after Discord's webhook events reference), signed Ed25519 (`X-Signature-Ed25519`,
 * `X-Signature-Timestamp`) with hooktap's trigger key.
 * @module
 */
import { digitString, randomText } from "../_ids.ts";
import type { BuildContext, Draft, EntryOrigin, TriggerCatalog } from "../catalog_types.ts";
import { stampNow } from "../_stamp.ts";
import {
  DISCORD_EVENTS,
  DISCORD_LISTED_EVENTS,
  DISCORD_LISTED_SOURCE,
  DISCORD_SOURCE,
} from "./samples/events.gen.ts";

type Obj = Record<string, unknown>;
const APP = "1011121314151617181";

function _base(c: BuildContext, type: number): Obj {
  return {
    app_permissions: "562949953601536",
    application_id: APP,
    authorizing_integration_owners: { "0": "1234567890123456789" },
    channel_id: "1234567890123456780",
    context: 0,
    entitlements: [],
    guild_id: "1234567890123456781",
    guild_locale: "en-US",
    id: digitString(19),
    locale: "en-US",
    member: {
      user: { id: "80351110224678912", username: "jenny", global_name: "Jenny", discriminator: "0" },
      roles: [],
      permissions: "2251799813685247",
      joined_at: "2023-01-01T00:00:00.000000+00:00",
    },
    token: `aW50ZXJhY3Rpb246${randomText(120)}`,
    type,
    version: 1,
    ...(type === 3 || type === 5
      ? { message: { id: c.id("discord.message", () => digitString(19)), content: "Approve the deploy?" } }
      : {}),
  };
}

const EVENTS: Record<string, (c: BuildContext) => Obj> = {
  PING: () => ({
    application_id: APP,
    id: digitString(19),
    token: `aW50ZXJhY3Rpb246${randomText(120)}`,
    type: 1,
    version: 1,
    user: { id: "80351110224678912", username: "jenny" },
  }),
  APPLICATION_COMMAND: (c) => ({
    ..._base(c, 2),
    data: {
      id: "1099887766554433221",
      name: "deploy",
      type: 1,
      options: [{ name: "env", type: 3, value: "staging" }],
    },
  }),
  MESSAGE_COMPONENT: (c) => ({ ..._base(c, 3), data: { component_type: 2, custom_id: "approve" } }),
  APPLICATION_COMMAND_AUTOCOMPLETE: (c) => ({
    ..._base(c, 4),
    data: {
      id: "1099887766554433221",
      name: "deploy",
      type: 1,
      options: [{ name: "env", type: 3, value: "sta", focused: true }],
    },
  }),
  MODAL_SUBMIT: (c) => ({
    ..._base(c, 5),
    data: {
      custom_id: "feedback",
      components: [{ type: 1, components: [{ type: 4, custom_id: "text", value: "Ship it" }] }],
    },
  }),
};

const LOBBY = "1397729744753266719";
const DM = "1405604229820715098";
const AUTHOR = {
  id: "80351110224678912",
  username: "jenny",
  avatar: "8342729096ea3675442027381ff50dfe",
  discriminator: "0",
  global_name: "Jenny",
  public_flags: 0,
};
const FRIEND = {
  id: "1019653849998299136",
  username: "rosen",
  avatar: null,
  discriminator: "0",
  global_name: "Rosen",
};

/** The envelope of a webhook event (type 1), as Discord's webhook events reference shows it. */
function _webhook(c: BuildContext, type: string, data: Obj): Obj {
  return { version: 1, application_id: APP, type: 1, event: { type, timestamp: c.now.toISOString(), data } };
}

/** A Lobby Message object: one id per run, so its create, update and delete name the same message. */
function _lobbyMessage(c: BuildContext): Obj {
  return {
    id: c.id("discord.lobby_message", () => digitString(19)),
    type: 0,
    content: "welcome to the party!",
    lobby_id: LOBBY,
    channel_id: LOBBY,
    author: AUTHOR,
    metadata: { team: "red" },
    flags: 0,
    application_id: APP,
  };
}

/** A Message object in a DM during a Social SDK session, with its `channel` (recipients). */
function _directMessage(c: BuildContext, sent: Date): Obj {
  return {
    id: c.id("discord.direct_message", () => digitString(19)),
    type: 0,
    content: "get in friend, we're going raiding",
    channel_id: DM,
    author: AUTHOR,
    timestamp: sent.toISOString().replace("Z", "+00:00"),
    edited_timestamp: null,
    tts: false,
    mention_everyone: false,
    mentions: [],
    mention_roles: [],
    attachments: [],
    embeds: [],
    components: [],
    pinned: false,
    flags: 0,
    application_id: APP,
    channel: { id: DM, type: 1, recipients: [FRIEND] },
  };
}

/** The webhook events discord-interactions lists that discord-api-types declares no payload for. */
const SOCIAL: Record<string, (c: BuildContext) => Obj> = {
  LOBBY_MESSAGE_CREATE: (c) => _webhook(c, "LOBBY_MESSAGE_CREATE", _lobbyMessage(c)),
  LOBBY_MESSAGE_UPDATE: (c) =>
    _webhook(c, "LOBBY_MESSAGE_UPDATE", {
      ..._lobbyMessage(c),
      content: "welcome to the party! (edited)",
      timestamp: new Date(c.now.getTime() - 60_000).toISOString().replace("Z", "+00:00"),
      edited_timestamp: c.now.toISOString().replace("Z", "+00:00"),
    }),
  LOBBY_MESSAGE_DELETE: (c) =>
    _webhook(c, "LOBBY_MESSAGE_DELETE", {
      id: c.id("discord.lobby_message", () => digitString(19)),
      lobby_id: LOBBY,
    }),
  GAME_DIRECT_MESSAGE_CREATE: (c) => _webhook(c, "GAME_DIRECT_MESSAGE_CREATE", _directMessage(c, c.now)),
  GAME_DIRECT_MESSAGE_UPDATE: (c) =>
    _webhook(c, "GAME_DIRECT_MESSAGE_UPDATE", {
      ..._directMessage(c, new Date(c.now.getTime() - 60_000)),
      content: "almost ready to queue?",
      edited_timestamp: c.now.toISOString().replace("Z", "+00:00"),
    }),
  // Discord sends the deleted message whole.
  GAME_DIRECT_MESSAGE_DELETE: (c) =>
    _webhook(c, "GAME_DIRECT_MESSAGE_DELETE", _directMessage(c, new Date(c.now.getTime() - 60_000))),
};

/** The webhook events discord-interactions lists beyond discord-api-types' (those with a payload here). */
const LISTED_ONLY = DISCORD_LISTED_EVENTS.filter((e) => DISCORD_EVENTS[e] === undefined && e in SOCIAL);

function build(event: string, ctx: BuildContext): Draft {
  const webhook = DISCORD_EVENTS[event] ?? (event in SOCIAL ? { body: SOCIAL[event]!(ctx) } : undefined);
  return {
    headers: [
      ["Content-Type", "application/json"],
      ["User-Agent", `Discord-${webhook ? "Webhook" : "Interactions"}/1.0 (+https://discord.com)`],
      ["X-Signature-Ed25519", ""],
      ["X-Signature-Timestamp", ""],
    ],
    body: { kind: "json", value: webhook ? stampNow(webhook.body, ctx.now) : EVENTS[event]!(ctx) },
  };
}

function entryOrigin(event: string): EntryOrigin | undefined {
  const webhook = DISCORD_EVENTS[event];
  if (webhook !== undefined) return { from: `discord-api-types ${webhook.data || "APIWebhookEvent"}` };
  return event in EVENTS || event in SOCIAL ? { from: "hand-written" } : undefined;
}

/** Discord's catalog. */
export const catalog: TriggerCatalog = {
  provider: "discord",
  source: `${DISCORD_SOURCE} and ${DISCORD_LISTED_SOURCE}`,
  entryOrigin,
  events: [...Object.keys(EVENTS), ...Object.keys(DISCORD_EVENTS), ...LISTED_ONLY],
  sequences: {
    command: {
      description: "a slash command, then a click on the button its answer showed",
      steps: [{ event: "APPLICATION_COMMAND" }, { event: "MESSAGE_COMPONENT" }],
    },
  },
  retries: [],
  retriesNote:
    'Discord does not retry interactions (the user sees "This interaction failed"); hooktap resends 1 s apart',
  build,
};
