/**
 * Twitch EventSub: a notification of every subscription type
 * `@twurple/eventsub-base` handles (twitch/events.gen.ts: type, version and
 * an event sampled from its data interface), the callback verification and
 * a revocation, with the `Twitch-Eventsub-*` headers Twitch sends.
 * @module
 */
import { randomText, stableUuid, uuid } from "../_ids.ts";
import type { BuildContext, Draft, EntryOrigin, TriggerCatalog } from "../catalog_types.ts";
import { stampNow } from "../_stamp.ts";
import { TWITCH_EVENTS, TWITCH_SOURCE } from "./samples/events.gen.ts";

type Obj = Record<string, unknown>;

/** The two messages that are not notifications (written by hand after Twitch's reference). */
const CONTROL = ["webhook_callback_verification", "revocation"];

/** A notification's condition: the ids its event names (the broadcaster, the moderator for channel.follow). */
function _condition(type: string, event: Obj | undefined): Obj {
  const condition: Obj = { broadcaster_user_id: String(event?.broadcaster_user_id ?? "1337") };
  if (type === "channel.follow") condition.moderator_user_id = "1337";
  if (type === "channel.raid") return { to_broadcaster_user_id: "1337" };
  if (type.startsWith("user.")) return { user_id: String(event?.user_id ?? "1234") };
  if (type.startsWith("drop.") || type.startsWith("extension.")) {
    return { client_id: "hooktapclientid0000000" };
  }
  return condition;
}

function build(name: string, ctx: BuildContext): Draft {
  const kind = CONTROL.includes(name) ? name : "notification";
  const spec = kind === "notification" ? TWITCH_EVENTS[name]! : TWITCH_EVENTS["channel.follow"]!;
  const subType = kind === "notification" ? name.replace(/\.v\d+$/, "") : "channel.follow";
  const event = kind === "notification" ? stampNow(spec.event, ctx.now) as Obj : undefined;
  // A subscription is one type and version at one callback URL: its id is the same on every notification
  // of it (and differs between the types of a sequence), its callback the URL it is sent to.
  const url = ctx.webhookUrl;
  const subKey = `twitch.sub ${subType} ${spec.version}`;
  const subscription = {
    id: ctx.id(subKey, () => url === undefined ? uuid() : stableUuid(`${subKey} ${url}`)),
    status: kind === "revocation"
      ? "authorization_revoked"
      : kind === "notification"
      ? "enabled"
      : "webhook_callback_verification_pending",
    type: subType,
    version: spec.version,
    cost: 0,
    condition: _condition(subType, event),
    transport: { method: "webhook", callback: url ?? "https://example.com/webhooks/callback" },
    created_at: ctx.now.toISOString(),
  };
  const body = kind === "notification"
    ? { subscription, event }
    : kind === "webhook_callback_verification"
    ? { challenge: randomText(40), subscription }
    : { subscription };
  return {
    headers: [
      ["Content-Type", "application/json"],
      ["Twitch-Eventsub-Message-Id", ""],
      ["Twitch-Eventsub-Message-Retry", "0"],
      ["Twitch-Eventsub-Message-Type", kind],
      ["Twitch-Eventsub-Message-Signature", ""],
      ["Twitch-Eventsub-Message-Timestamp", ""],
      ["Twitch-Eventsub-Subscription-Type", subType],
      ["Twitch-Eventsub-Subscription-Version", spec.version],
      ["User-Agent", "Twitch-Eventsub-Webhooks/1.0"],
    ],
    body: { kind: "json", value: body },
    deliveryHeader: "Twitch-Eventsub-Message-Id",
  };
}

function entryOrigin(event: string): EntryOrigin | undefined {
  const generated = TWITCH_EVENTS[event];
  if (generated !== undefined) return { from: `@twurple/eventsub-base ${generated.data}` };
  return CONTROL.includes(event) ? { from: "hand-written" } : undefined;
}

/** Twitch's catalog. */
export const catalog: TriggerCatalog = {
  provider: "twitch",
  source: TWITCH_SOURCE,
  entryOrigin,
  events: [...Object.keys(TWITCH_EVENTS), ...CONTROL],
  sequences: {
    stream: {
      description: "a stream goes online, gets a follow and a cheer, goes offline",
      steps: [{ event: "stream.online" }, { event: "channel.follow" }, { event: "channel.cheer" }, {
        event: "stream.offline",
      }],
    },
  },
  retries: [1, 2, 4, 8, 16],
  retriesNote:
    "Twitch retries a failed notification with backoff, for a short time (Twitch-Eventsub-Message-Retry)",
  retryHeaders: (n) => [["Twitch-Eventsub-Message-Retry", String(n)]],
  build,
};
