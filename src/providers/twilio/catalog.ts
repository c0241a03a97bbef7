/**
 * Twilio: message and call status callbacks and an incoming message, as
 * form bodies, signed over the URL they are sent to (`--signature-url`
 * changes it).
 * @module
 */
import { hex } from "../_ids.ts";
import type { BuildContext, Draft, TriggerCatalog } from "../catalog_types.ts";

const ACCOUNT = "AC" + "0123456789abcdef".repeat(2);

function _sid(ctx: BuildContext, name: string, prefix: string): string {
  return ctx.id(`twilio.${name}`, () => prefix + hex(32));
}

function _message(ctx: BuildContext, status: string): [string, string][] {
  const out: [string, string][] = [
    ["ApiVersion", "2010-04-01"],
    ["AccountSid", ACCOUNT],
    ["SmsSid", _sid(ctx, "message", "SM")],
    ["SmsStatus", status],
    ["MessageStatus", status],
    ["MessageSid", _sid(ctx, "message", "SM")],
    ["To", "+15558675310"],
    ["From", "+15017122661"],
  ];
  if (status === "undelivered" || status === "failed") out.push(["ErrorCode", "30003"]);
  if (status === "delivered" || status === "read") out.push(["RawDlrDoneDate", "2406011205"]);
  return out;
}

function _call(ctx: BuildContext, status: string): [string, string][] {
  return [
    ["AccountSid", ACCOUNT],
    ["ApiVersion", "2010-04-01"],
    ["CallSid", _sid(ctx, "call", "CA")],
    ["CallStatus", status],
    ["Called", "+15558675310"],
    ["Caller", "+15017122661"],
    ["Direction", "outbound-api"],
    ["From", "+15017122661"],
    ["To", "+15558675310"],
    ["Timestamp", new Date(ctx.now).toUTCString().replace("GMT", "+0000")],
    ["CallbackSource", "call-progress-events"],
    ["SequenceNumber", "0"],
    ...(status === "completed" ? [["CallDuration", "37"], ["Duration", "1"]] as [string, string][] : []),
  ];
}

const EVENTS: Record<string, (ctx: BuildContext) => [string, string][]> = {
  queued: (c) => _message(c, "queued"),
  sent: (c) => _message(c, "sent"),
  delivered: (c) => _message(c, "delivered"),
  undelivered: (c) => _message(c, "undelivered"),
  failed: (c) => _message(c, "failed"),
  read: (c) => _message(c, "read"),
  "incoming-message": (c) => [
    ["ToCountry", "US"],
    ["SmsMessageSid", _sid(c, "message", "SM")],
    ["NumMedia", "0"],
    ["SmsSid", _sid(c, "message", "SM")],
    ["SmsStatus", "received"],
    ["Body", "Hello from hooktap"],
    ["To", "+15017122661"],
    ["NumSegments", "1"],
    ["MessageSid", _sid(c, "message", "SM")],
    ["AccountSid", ACCOUNT],
    ["From", "+15558675310"],
    ["ApiVersion", "2010-04-01"],
  ],
  "call-initiated": (c) => _call(c, "initiated"),
  "call-ringing": (c) => _call(c, "ringing"),
  "call-answered": (c) => _call(c, "in-progress"),
  "call-completed": (c) => _call(c, "completed"),
};

function build(event: string, ctx: BuildContext): Draft {
  return {
    headers: [
      ["Content-Type", "application/x-www-form-urlencoded"],
      ["I-Twilio-Idempotency-Token", crypto.randomUUID()],
      ["User-Agent", "TwilioProxy/1.1"],
      ["X-Home-Region", "us1"],
      ["X-Twilio-Signature", ""],
    ],
    body: { kind: "form", value: EVENTS[event]!(ctx) },
    deliveryHeader: "I-Twilio-Idempotency-Token",
  };
}

/** Twilio's catalog. */
export const catalog: TriggerCatalog = {
  provider: "twilio",
  source: "hand-written",
  events: Object.keys(EVENTS),
  sequences: {
    message: {
      description: "an outbound SMS: queued, sent, delivered (same MessageSid)",
      steps: [{ event: "queued" }, { event: "sent" }, { event: "delivered" }],
    },
    call: {
      description: "an outbound call: initiated, ringing, answered, completed (same CallSid)",
      steps: [
        { event: "call-initiated" },
        { event: "call-ringing" },
        { event: "call-answered" },
        { event: "call-completed" },
      ],
    },
  },
  signsUrl: true,
  retries: [15],
  retriesNote: "Twilio retries a status callback once on a connection failure (#rc connection override)",
  build,
};
