/**
 * The generic HMAC scheme of an endpoint's `hmac` config: a JSON event,
 * signed as the config describes (header, algorithm, encoding, prefix,
 * signed template).
 * @module
 */
import { prefixed, uuid } from "../_ids.ts";
import type { BuildContext, Draft, TriggerCatalog } from "../catalog_types.ts";

function build(event: string, ctx: BuildContext): Draft {
  return {
    headers: [["Content-Type", "application/json"], ["User-Agent", "hooktap-trigger"], [
      "X-Request-Id",
      uuid(),
    ]],
    body: {
      kind: "json",
      value: {
        id: prefixed("evt", 16),
        type: event,
        created_at: ctx.now.toISOString(),
        data: { id: ctx.id("hmac.object", uuid), status: "ok" },
      },
    },
    deliveryHeader: "X-Request-Id",
  };
}

/** The generic HMAC catalog. */
export const catalog: TriggerCatalog = {
  provider: "hmac",
  source: "hand-written",
  events: ["event.created", "event.updated"],
  sequences: {},
  retries: [],
  retriesNote: "a generic sender has no documented schedule; hooktap resends 1 s apart",
  build,
};
