/**
 * The fallback: requests no provider claims (verdict `unsigned`).
 * @module
 */
import type { Provider } from "../types.ts";

/** The fallback: a sender hooktap does not know. */
export const generic: Provider = {
  name: "generic",
  title: "Unknown sender",
  signatureHeaders: [],
  timestamped: false,
  detect: () => true,
  eventType: () => undefined,
  verify: () => ({ status: "unsigned", scheme: "none", reason: "no known signature scheme on the request" }),
};

/** This folder's provider, for the index (src/providers/index.ts). */
export const provider: Provider = generic;
