/**
 * Standard Webhooks / Svix's facts (pure data: src/providers/facts.ts).
 * @module
 */
import type { ProviderMeta } from "../facts.ts";

/** Standard Webhooks / Svix's facts. */
export const meta: ProviderMeta = {
  name: "standard-webhooks",
  aliases: ["svix", "standardwebhooks"],
  title: "Standard Webhooks / Svix",
  short: "Standard Webhooks",
  timestamped: true,
  resigns: true,
  signedTimestamp: {
    header: "webhook-timestamp",
    read: "seconds",
    label: "Standard Webhooks",
    also: [{ header: "svix-timestamp", label: "Svix" }],
  },
  keyPair: { kind: "ed25519", publicKey: "whpk" },
  signatureHeaders: ["webhook-signature", "svix-signature"],
  triggerable: true,
};
