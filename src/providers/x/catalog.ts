/**
 * X (Twitter) Account Activity API events, signed
 * `x-twitter-webhooks-signature: sha256=<base64>` with the consumer secret.
 * @module
 */
import { digitString } from "../_ids.ts";
import type { BuildContext, Draft, TriggerCatalog } from "../catalog_types.ts";

const USER = { id: "3001969357", name: "Jenny", screen_name: "jenny", followers_count: 42 };

const EVENTS: Record<string, (c: BuildContext) => Record<string, unknown>> = {
  tweet_create_events: (c) => ({
    for_user_id: "2244994945",
    tweet_create_events: [{
      created_at: c.now.toUTCString(),
      id_str: digitString(19),
      text: "@hooktap hello",
      user: USER,
    }],
  }),
  favorite_events: (c) => ({
    for_user_id: "2244994945",
    favorite_events: [{
      id: digitString(19),
      created_at: c.now.toUTCString(),
      timestamp_ms: c.now.getTime(),
      favorited_status: { id_str: digitString(19), text: "Webhooks!" },
      user: USER,
    }],
  }),
  follow_events: (c) => ({
    for_user_id: "2244994945",
    follow_events: [{
      type: "follow",
      created_timestamp: String(c.now.getTime()),
      target: { id: "2244994945" },
      source: USER,
    }],
  }),
};

function build(event: string, ctx: BuildContext): Draft {
  return {
    headers: [["Content-Type", "application/json; charset=utf-8"], ["x-twitter-webhooks-signature", ""]],
    body: { kind: "json", value: EVENTS[event]!(ctx) },
  };
}

/** X's catalog. */
export const catalog: TriggerCatalog = {
  provider: "x",
  source: "hand-written",
  events: Object.keys(EVENTS),
  sequences: {},
  retries: [],
  retriesNote: "X does not retry Account Activity events; hooktap resends 1 s apart",
  build,
};
