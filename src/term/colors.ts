/**
 * ANSI colours, on only when stdout is a terminal and `NO_COLOR` is unset.
 *
 * Not picocolors: it reads `FORCE_COLOR`, `CI` and `TERM` from the
 * environment when imported, which under Deno needs `--allow-env` and would
 * break the least-privilege flags (or prompt on a terminal). These few lines
 * need no permission.
 * @module
 */

import type { Colors } from "../cli/output.ts";

export type { Colors };

function paint(enabled: boolean, open: number, close: number): (s: string) => string {
  return enabled ? (s) => `\x1b[${open}m${s}\x1b[${close}m` : (s) => s;
}

/** Colours that are on when `enabled`. */
export function createColors(enabled: boolean): Colors {
  return {
    enabled,
    bold: paint(enabled, 1, 22),
    dim: paint(enabled, 2, 22),
    red: paint(enabled, 31, 39),
    green: paint(enabled, 32, 39),
    yellow: paint(enabled, 33, 39),
    blue: paint(enabled, 34, 39),
    magenta: paint(enabled, 35, 39),
    cyan: paint(enabled, 36, 39),
    gray: paint(enabled, 90, 39),
  };
}
