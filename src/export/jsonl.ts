/**
 * `--format jsonl`: the stored lines as they are, byte for byte.
 * @module
 */
import type { ExportFormat } from "./format.ts";

/** JSON Lines, as stored. */
export const JSONL: ExportFormat = {
  name: "jsonl",
  description: "the stored records, one line each, byte for byte",
  create: () => ({ event: (_event, line) => line + "\n" }),
};
