/**
 * SendGrid's facts (pure data: src/providers/facts.ts).
 * @module
 */
import type { ProviderMeta } from "../facts.ts";

/** SendGrid's facts. */
export const meta: ProviderMeta = {
  name: "sendgrid",
  aliases: [],
  title: "SendGrid",
  short: "SendGrid",
  timestamped: false,
  resigns: false,
  signedTimestamp: { header: "X-Twilio-Email-Event-Webhook-Timestamp", read: "seconds" },
  keyPair: { kind: "p256", publicKey: "base64" },
  signatureHeaders: ["x-twilio-email-event-webhook-signature"],
  triggerable: true,
};
