/**
 * Linear's facts (pure data: src/providers/facts.ts).
 * @module
 */
import type { ProviderMeta } from "../facts.ts";

/** Linear's facts. */
export const meta: ProviderMeta = {
  name: "linear",
  aliases: [],
  title: "Linear",
  short: "Linear",
  timestamped: false,
  resigns: true,
  signedTimestamp: { bodyField: "webhookTimestamp", unit: "ms", toleranceFloor: 60 },
  signatureHeaders: ["linear-signature"],
  triggerable: true,
};
