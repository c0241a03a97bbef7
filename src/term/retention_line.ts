/**
 * The line `hooktap dev` prints when its `retention` pruned the log.
 * @module
 */
import type { Colors } from "./colors.ts";
import { formatBytes, plural } from "../text/format.ts";

/** What `dev` prints after a retention prune (or its failure). */
export function retentionLine(
  result: { kept: number; bytesBefore: number; bytesAfter: number } | Error,
  c: Colors,
): string {
  if (result instanceof Error) return c.red(`error: retention could not prune the log: ${result.message}\n`);
  return c.dim(
    `retention: pruned the log to ${plural(result.kept, "event")}, ${
      formatBytes(result.bytesBefore - result.bytesAfter)
    } freed\n`,
  );
}
