/**
 * Linear: every webhook `@linear/sdk` types (linear/events.gen.ts: each
 * entity's create/update/remove and the other webhook types, a payload
 * sampled from the SDK's payload type), with this run's ids put in so a
 * flow's events name the same issue; `Linear-Event` and `Linear-Delivery`
 * headers, signed `Linear-Signature` over a body whose `webhookTimestamp`
 * is the signing time (trigger's run re-stamps it, as @linear/sdk checks it
 * within 60 s).
 * @module
 */
import { stableUuid, uuid } from "../_ids.ts";
import type { BuildContext, Draft, EntryOrigin, TriggerCatalog } from "../catalog_types.ts";
import { stampNow } from "../_stamp.ts";
import { LINEAR_EVENTS, LINEAR_SOURCE } from "./samples/events.gen.ts";

type Obj = Record<string, unknown>;

function build(event: string, ctx: BuildContext): Draft {
  const type = event.slice(0, event.indexOf("."));
  const body = stampNow(LINEAR_EVENTS[event]!.body, ctx.now) as Obj;
  const issue = ctx.id("linear.issue", uuid);
  const team = ctx.id("linear.team", uuid);
  const data = body.data as Obj | undefined;
  if (data !== null && typeof data === "object") {
    data.id = type === "Issue" ? issue : ctx.id(`linear.${type}`, uuid);
    if (typeof data.issueId === "string") data.issueId = issue;
    if (typeof data.teamId === "string") data.teamId = team;
    if (data.issue !== null && typeof data.issue === "object") (data.issue as Obj).id = issue;
  }
  // The workspace's and the webhook's ids name the configuration, not the delivery: the same on every
  // trigger to the same URL.
  const url = ctx.webhookUrl;
  const stable = (name: string) => () => url === undefined ? uuid() : stableUuid(`${name} ${url}`);
  if (typeof body.organizationId === "string") {
    body.organizationId = ctx.id("linear.org", stable("linear.org"));
  }
  if (typeof body.webhookId === "string") body.webhookId = ctx.id("linear.webhook", stable("linear.webhook"));
  if ("webhookTimestamp" in body) body.webhookTimestamp = ctx.now.getTime();
  return {
    headers: [
      ["Content-Type", "application/json; charset=utf-8"],
      ["Linear-Delivery", uuid()],
      ["Linear-Event", type],
      ["Linear-Signature", ""],
      ["User-Agent", "Linear-Webhook"],
    ],
    body: { kind: "json", value: body },
    deliveryHeader: "Linear-Delivery",
  };
}

function entryOrigin(event: string): EntryOrigin | undefined {
  const generated = LINEAR_EVENTS[event];
  return generated === undefined ? undefined : { from: `@linear/sdk ${generated.payload}` };
}

/** Linear's catalog. */
export const catalog: TriggerCatalog = {
  provider: "linear",
  source: LINEAR_SOURCE,
  entryOrigin,
  events: Object.keys(LINEAR_EVENTS),
  sequences: {
    issue: {
      description: "an issue created, commented on, then updated (same issue)",
      steps: [{ event: "Issue.create" }, { event: "Comment.create" }, { event: "Issue.update" }],
    },
  },
  retries: [60, 3600, 21600],
  retriesNote: "Linear retries 3 times: after 1 minute, 1 hour and 6 hours",
  build,
};
