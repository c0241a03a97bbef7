/**
 * Microsoft Graph change notifications, `clientState` set to the
 * endpoint's secret (Graph signs nothing; the app compares clientState).
 * @module
 */
import { uuid } from "../_ids.ts";
import type { BuildContext, Draft, TriggerCatalog } from "../catalog_types.ts";

function _notification(c: BuildContext, changeType: string): Record<string, unknown> {
  const id = c.id("msgraph.message", () => `AAMkAD${uuid().replace(/-/g, "")}`);
  return {
    value: [{
      subscriptionId: c.id("msgraph.sub", uuid),
      subscriptionExpirationDateTime: new Date(c.now.getTime() + 3 * 86400e3).toISOString(),
      changeType,
      resource: `Users/${c.id("msgraph.user", uuid)}/Messages/${id}`,
      resourceData: { "@odata.type": "#Microsoft.Graph.Message", "@odata.id": `Users/me/Messages/${id}`, id },
      ...(c.secret === undefined ? {} : { clientState: c.secret }),
      tenantId: c.id("msgraph.tenant", uuid),
    }],
  };
}

function build(event: string, ctx: BuildContext): Draft {
  return {
    headers: [["Content-Type", "application/json; charset=utf-8"], [
      "User-Agent",
      "Microsoft-Graph-ChangeTracking/1.0",
    ]],
    body: { kind: "json", value: _notification(ctx, event) },
  };
}

/** Microsoft Graph's catalog. */
export const catalog: TriggerCatalog = {
  provider: "msgraph",
  source: "hand-written",
  events: ["created", "updated", "deleted"],
  sequences: {},
  retries: [60, 300, 900, 3600, 14400],
  retriesNote: "Graph retries with exponential backoff for up to 4 hours",
  build,
};
