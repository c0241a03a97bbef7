/**
 * `--format raw`: one event's exact body bytes.
 * @module
 */
import { decodeBody } from "../event/record.ts";
import type { ExportFormat } from "./format.ts";

/** The body bytes. */
export const RAW: ExportFormat = {
  name: "raw",
  description: "one event's exact body bytes (never to a terminal)",
  raw: true,
  create: () => ({ event: (event) => decodeBody(event) }),
};
