/**
 * The fix to name when a write in the data directory fails, by why it
 * failed: a full disk wants space, a read-only one another disk, a file
 * the user may not write a chmod, a Deno permission the flag. No path in
 * it, only the data directory's name: the 503 a sender gets carries it too.
 * @module
 */
import { describeError } from "../../errors.ts";

/** Why a write failed, in words, and what to do about it. */
export interface WriteFailure {
  /** `the disk is full (No space left on device (os error 28))`, … */
  reason: string;
  /** `free some space on the disk that holds .hooktap (df -h .hooktap)`, … */
  fix: string;
}

/**
 * Sorts a failed write's `error` into {@linkcode WriteFailure}.
 * @param dir the data directory's name, as the fix names it (its last segment: no path reaches a sender)
 */
export function writeFailureOf(error: unknown, dir = ".hooktap"): WriteFailure {
  const text = describeError(error);
  if (error instanceof Deno.errors.NotCapable) {
    return {
      reason: `hooktap may not write there (${text})`,
      fix: `allow it: deno run --allow-write=${dir}`,
    };
  }
  if (/no space|ENOSPC|quota/i.test(text)) {
    return {
      reason: `the disk is full (${text})`,
      fix: `free some space on the disk that holds ${dir} (df -h ${dir} shows it)`,
    };
  }
  if (/read-only|EROFS/i.test(text)) {
    return {
      reason: `the disk is read-only (${text})`,
      fix: "run hooktap in a directory on a writable disk",
    };
  }
  if (error instanceof Deno.errors.PermissionDenied) {
    return {
      reason: `permission denied (${text})`,
      fix: `make ${dir} and its files writable by you (ls -la ${dir} shows who owns them)`,
    };
  }
  return { reason: text, fix: `check the disk and that you may write in ${dir}` };
}
