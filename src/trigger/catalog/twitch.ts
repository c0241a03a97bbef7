/**
 * Twitch EventSub: notifications, the callback verification and a
 * revocation, with the `Twitch-Eventsub-*` headers Twitch sends.
 * @module
 */
import { digits, randomText, uuid } from "../_ids.ts";
import type { BuildContext, Draft, TriggerCatalog } from "../types.ts";

type Obj = Record<string, unknown>;
const BROADCASTER = {
  broadcaster_user_id: "1337",
  broadcaster_user_login: "cool_user",
  broadcaster_user_name: "Cool_User",
};

const EVENTS: Record<string, { version: string; event?: (c: BuildContext) => Obj }> = {
  "channel.follow": {
    version: "2",
    event: (c) => ({
      user_id: "1234",
      user_login: "cool_follower",
      user_name: "Cool_Follower",
      ...BROADCASTER,
      followed_at: c.now.toISOString(),
    }),
  },
  "channel.subscribe": {
    version: "1",
    event: () => ({
      user_id: "1234",
      user_login: "cool_user2",
      user_name: "Cool_User2",
      ...BROADCASTER,
      tier: "1000",
      is_gift: false,
    }),
  },
  "channel.cheer": {
    version: "1",
    event: () => ({
      is_anonymous: false,
      user_id: "1234",
      user_login: "cheerer",
      user_name: "Cheerer",
      ...BROADCASTER,
      message: "pogchamp",
      bits: 1000,
    }),
  },
  "stream.online": {
    version: "1",
    event: (c) => ({ id: String(digits(10)), ...BROADCASTER, type: "live", started_at: c.now.toISOString() }),
  },
  "stream.offline": { version: "1", event: () => ({ ...BROADCASTER }) },
  "webhook_callback_verification": { version: "2" },
  "revocation": { version: "2" },
};

function build(name: string, ctx: BuildContext): Draft {
  const spec = EVENTS[name]!;
  const kind = name === "webhook_callback_verification" || name === "revocation" ? name : "notification";
  const subType = kind === "notification" ? name : "channel.follow";
  const subscription = {
    id: ctx.id("twitch.sub", uuid),
    status: kind === "revocation"
      ? "authorization_revoked"
      : kind === "notification"
      ? "enabled"
      : "webhook_callback_verification_pending",
    type: subType,
    version: spec.version,
    cost: 0,
    condition: {
      broadcaster_user_id: "1337",
      ...(subType === "channel.follow" ? { moderator_user_id: "1337" } : {}),
    },
    transport: { method: "webhook", callback: "https://example.com/webhooks/callback" },
    created_at: ctx.now.toISOString(),
  };
  const body = kind === "notification"
    ? { subscription, event: spec.event!(ctx) }
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

/** Twitch's catalog. */
export const catalog: TriggerCatalog = {
  provider: "twitch",
  source: "hand-written",
  events: Object.keys(EVENTS),
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
