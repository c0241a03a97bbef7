/**
 * SendGrid Event Webhook: a JSON array of events as SendGrid batches them,
 * signed ECDSA P-256 (`X-Twilio-Email-Event-Webhook-Signature`, `-Timestamp`)
 * with hooktap's trigger key.
 * @module
 */
import { randomText, unix } from "../_ids.ts";
import type { BuildContext, Draft, TriggerCatalog } from "../catalog_types.ts";

type Obj = Record<string, unknown>;
const NAMES = [
  "processed",
  "delivered",
  "open",
  "click",
  "bounce",
  "dropped",
  "deferred",
  "spamreport",
  "unsubscribe",
];

function _event(c: BuildContext, event: string): Obj {
  const sgMessageId = c.id("sendgrid.message", () => `${randomText(22)}.filterdrecv-${randomText(10)}.0`);
  const base: Obj = {
    email: "jenny.rosen@example.com",
    timestamp: unix(c.now),
    "smtp-id": c.id("sendgrid.smtp", () => `<${randomText(22)}@ismtpd0001p1lon1.sendgrid.net>`),
    event,
    category: ["welcome"],
    sg_event_id: randomText(22),
    sg_message_id: sgMessageId,
  };
  if (event === "delivered") base.response = "250 OK";
  if (event === "open" || event === "click") {
    Object.assign(base, { useragent: "Mozilla/5.0", ip: "255.255.255.255" });
  }
  if (event === "click") base.url = "https://example.com/welcome";
  if (event === "bounce") {
    Object.assign(base, { reason: "500 unknown recipient", status: "5.0.0", type: "bounce" });
  }
  if (event === "dropped") base.reason = "Bounced Address";
  if (event === "deferred") Object.assign(base, { response: "400 try again later", attempt: "5" });
  return base;
}

function build(event: string, ctx: BuildContext): Draft {
  return {
    headers: [
      ["Content-Type", "application/json"],
      ["User-Agent", "SendGrid Event API"],
      ["X-Twilio-Email-Event-Webhook-Signature", ""],
      ["X-Twilio-Email-Event-Webhook-Timestamp", ""],
    ],
    body: { kind: "json", value: [_event(ctx, event)] },
  };
}

/** SendGrid's catalog. */
export const catalog: TriggerCatalog = {
  provider: "sendgrid",
  source: "hand-written",
  events: NAMES,
  sequences: {
    email: {
      description: "an email processed, delivered, opened, clicked (same sg_message_id)",
      steps: [{ event: "processed" }, { event: "delivered" }, { event: "open" }, { event: "click" }],
    },
  },
  retries: [300, 600, 1200, 2400, 4800, 9600, 19200, 38400],
  retriesNote: "SendGrid retries failed POSTs at increasing intervals for up to 24 hours",
  build,
};
