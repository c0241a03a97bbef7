/**
 * Discord's facts (pure data: src/providers/facts.ts).
 * @module
 */
import type { ProviderMeta } from "../facts.ts";

/** Discord's facts. */
export const meta: ProviderMeta = {
  name: "discord",
  aliases: [],
  title: "Discord",
  short: "Discord",
  timestamped: false,
  resigns: false,
  signedTimestamp: { header: "X-Signature-Timestamp", read: "seconds" },
  keyPair: { kind: "ed25519", publicKey: "hex" },
  answerWithinMs: 3000,
  answeredByApp: [
    "APPLICATION_COMMAND",
    "MESSAGE_COMPONENT",
    "APPLICATION_COMMAND_AUTOCOMPLETE",
    "MODAL_SUBMIT",
  ],
  answeredByAppLost: 'it shows "This interaction failed"',
  signatureHeaders: ["x-signature-ed25519"],
  triggerable: true,
};
