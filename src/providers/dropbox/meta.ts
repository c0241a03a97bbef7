/**
 * Dropbox's facts (pure data: src/providers/facts.ts).
 * @module
 */
import type { ProviderMeta } from "../facts.ts";

/** Dropbox's facts. */
export const meta: ProviderMeta = {
  name: "dropbox",
  aliases: [],
  title: "Dropbox",
  short: "Dropbox",
  timestamped: false,
  resigns: true,
  signatureHeaders: ["x-dropbox-signature"],
  triggerable: true,
};
