/**
 * Discord: interactions (PING, a slash command, a button click, an
 * autocomplete and a modal submit, written by hand) and webhook events
 * (every event of discord-api-types' APIWebhookEventBody and the webhook
 * PING, discord/events.gen.ts), signed Ed25519 (`X-Signature-Ed25519`,
 * `X-Signature-Timestamp`) with hooktap's trigger key.
 * @module
 */
import { digits, randomText } from "../_ids.ts";
import type { BuildContext, Draft, EntryOrigin, TriggerCatalog } from "../catalog_types.ts";
import { stampNow } from "../_stamp.ts";
import { DISCORD_EVENTS, DISCORD_SOURCE } from "./samples/events.gen.ts";

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
    id: String(digits(19)),
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
      ? { message: { id: c.id("discord.message", () => String(digits(19))), content: "Approve the deploy?" } }
      : {}),
  };
}

const EVENTS: Record<string, (c: BuildContext) => Obj> = {
  PING: () => ({
    application_id: APP,
    id: String(digits(19)),
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

function build(event: string, ctx: BuildContext): Draft {
  const webhook = DISCORD_EVENTS[event];
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
  return event in EVENTS ? { from: "hand-written" } : undefined;
}

/** Discord's catalog. */
export const catalog: TriggerCatalog = {
  provider: "discord",
  source: DISCORD_SOURCE,
  entryOrigin,
  events: [...Object.keys(EVENTS), ...Object.keys(DISCORD_EVENTS)],
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
