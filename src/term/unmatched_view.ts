/**
 * `hooktap logs --unmatched`: the requests that matched no endpoint, one
 * line each, then the hints about them. Request paths are sender-chosen
 * text: sanitized before the terminal.
 * @module
 */
import type { UnmatchedHint } from "../route/hints.ts";
import type { UnmatchedEntry } from "../store/write/unmatched.ts";
import type { Colors } from "./colors.ts";
import { formatLocalTime } from "../text/format.ts";
import { safeLine } from "../text/sanitize.ts";
import { layoutRows } from "./table.ts";

/** One line per unmatched request, fitted to `width`. */
export function unmatchedLines(entries: readonly UnmatchedEntry[], colors: Colors, width?: number): string[] {
  const rows = entries.map((e) => [
    formatLocalTime(new Date(e.time)),
    safeLine(e.method),
    safeLine(e.query ? `${e.path}?${e.query}` : e.path),
    String(e.status),
    e.status === 405 ? `accepts ${e.allow?.join(", ") ?? "other methods"}` : "no endpoint",
  ]);
  return layoutRows(
    [
      { priority: 6, paint: colors.dim },
      { priority: 8 },
      { priority: 9, min: 12 },
      { priority: 10, paint: colors.yellow },
      { priority: 5, min: 10, paint: colors.dim },
    ],
    rows,
    width,
  );
}

/** The hints, for stderr: `hint: 12 POST requests to / : your sender's URL lacks /webhook` and its fix. */
export function hintLines(hints: readonly UnmatchedHint[], colors: Colors): string[] {
  return hints.flatMap((h) => [
    `${colors.yellow("hint:")} ${safeLine(h.text)}`,
    `      ${colors.dim("fix:")} ${safeLine(h.fix)}`,
  ]);
}
