/**
 * Linear: issue and comment webhooks (`{action, type, data, url,
 * createdAt, webhookTimestamp, ...}`), `Linear-Event` and
 * `Linear-Delivery` headers, signed `Linear-Signature`.
 * @module
 */
import { uuid } from "../_ids.ts";
import type { BuildContext, Draft, TriggerCatalog } from "../types.ts";

type Obj = Record<string, unknown>;

function _issue(c: BuildContext, state: string): Obj {
  const at = c.now.toISOString();
  return {
    id: c.id("linear.issue", uuid),
    identifier: "ENG-123",
    number: 123,
    title: "Webhook handler drops retries",
    priority: 2,
    state: { id: uuid(), name: state, type: state === "Done" ? "completed" : "unstarted", color: "#e2e2e2" },
    team: { id: c.id("linear.team", uuid), key: "ENG", name: "Engineering" },
    teamId: c.id("linear.team", uuid),
    createdAt: at,
    updatedAt: at,
    url: "https://linear.app/hooktap/issue/ENG-123/webhook-handler-drops-retries",
  };
}

const EVENTS: Record<string, (c: BuildContext) => { type: string; data: Obj; updatedFrom?: Obj }> = {
  "Issue.create": (c) => ({ type: "Issue", data: _issue(c, "Todo") }),
  "Issue.update": (c) => ({ type: "Issue", data: _issue(c, "Done"), updatedFrom: { stateId: uuid() } }),
  "Issue.remove": (c) => ({ type: "Issue", data: _issue(c, "Todo") }),
  "Comment.create": (c) => ({
    type: "Comment",
    data: {
      id: uuid(),
      body: "Reproduced with `hooktap trigger`.",
      issueId: c.id("linear.issue", uuid),
      userId: uuid(),
      createdAt: c.now.toISOString(),
      updatedAt: c.now.toISOString(),
    },
  }),
};

function build(event: string, ctx: BuildContext): Draft {
  const [, action] = event.split(".");
  const { type, data, updatedFrom } = EVENTS[event]!(ctx);
  const body: Obj = {
    action,
    actor: { id: uuid(), name: "Jenny Rosen", type: "user" },
    createdAt: ctx.now.toISOString(),
    data,
    ...(updatedFrom === undefined ? {} : { updatedFrom }),
    url: (data.url as string | undefined) ?? "https://linear.app/hooktap/issue/ENG-123",
    type,
    organizationId: ctx.id("linear.org", uuid),
    webhookTimestamp: ctx.now.getTime(),
    webhookId: ctx.id("linear.webhook", uuid),
  };
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

/** Linear's catalog. */
export const catalog: TriggerCatalog = {
  provider: "linear",
  source: "hand-written",
  events: Object.keys(EVENTS),
  sequences: {
    issue: {
      description: "an issue created, commented on, then updated to Done (same issue)",
      steps: [{ event: "Issue.create" }, { event: "Comment.create" }, { event: "Issue.update" }],
    },
  },
  retries: [60, 3600, 21600],
  retriesNote: "Linear retries 3 times: after 1 minute, 1 hour and 6 hours",
  build,
};
