/**
 * Rows of columns that fit the terminal, as `gh` and `docker ps` fit them:
 * nothing wraps; when the rows are too wide, flexible columns shrink (their
 * cells clipped with `…`) down to a minimum, then the least important
 * columns are dropped. Without a width (output to a pipe) every column is
 * shown whole. Cells are plain text (already sanitized); colour is applied
 * after fitting. Pure.
 * @module
 */
import { clipTo, displayWidth, padTo } from "./width.ts";

/** One column. */
export interface Column {
  /** Higher stays longer when space is short; the highest is never dropped. */
  priority: number;
  /** Narrowest a flexible column is shrunk to; a column that is not flexible keeps its natural width. */
  min?: number;
  /** Widest it grows. */
  max?: number;
  align?: "left" | "right";
  /** Colour of its cells (applied after fitting). */
  paint?: (text: string) => string;
}

const GAP = "  ";

/** Which columns are shown and how wide, for `rows` in `width` columns (undefined: no limit). */
export function fitColumns(
  columns: readonly Column[],
  rows: readonly (readonly string[])[],
  width: number | undefined,
): (number | null)[] {
  const widths: (number | null)[] = columns.map((column, i) => {
    const natural = Math.max(0, ...rows.map((r) => displayWidth(r[i] ?? "")));
    return Math.min(natural, column.max ?? Infinity);
  });
  if (width === undefined) return widths;
  const total = () => {
    const shown = widths.filter((w): w is number => w !== null);
    return shown.reduce((a, b) => a + b, 0) + GAP.length * Math.max(0, shown.length - 1);
  };
  const natural = [...widths];
  const order = columns.map((c, i) => ({ c, i })).sort((a, b) => a.c.priority - b.c.priority);
  // 1. Shrink the flexible columns to their minimum, least important first.
  for (const { c, i } of order) {
    if (total() <= width) break;
    if (c.min !== undefined && widths[i]! > c.min) {
      widths[i] = Math.max(c.min, widths[i]! - (total() - width));
    }
  }
  // 2. Drop the least important columns (never the most important one).
  for (const { i } of order.slice(0, -1)) {
    if (total() <= width) break;
    widths[i] = null;
  }
  // 3. Still too wide: cut the last one standing.
  const top = order.at(-1)!.i;
  if (total() > width) widths[top] = Math.max(1, widths[top]! - (total() - width));
  // 4. Give room freed by dropped columns back to the shrunk ones, most important first.
  for (const { i } of [...order].reverse()) {
    const w = widths[i];
    if (w === null || w === undefined || w >= natural[i]!) continue;
    widths[i] = Math.min(natural[i]!, w + Math.max(0, width - total()));
  }
  return widths;
}

/** The lines of `rows` laid out in `width` columns (no newlines added). */
export function layoutRows(
  columns: readonly Column[],
  rows: readonly (readonly string[])[],
  width: number | undefined,
): string[] {
  const widths = fitColumns(columns, rows, width);
  const last = widths.findLastIndex((w) => w !== null);
  return rows.map((row) =>
    columns.map((column, i) => {
      const w = widths[i];
      if (w === null || w === undefined) return null;
      const cell = clipTo(row[i] ?? "", w);
      const padded = i === last && column.align !== "right" ? cell : padTo(cell, w, column.align);
      return column.paint ? column.paint(padded) : padded;
    }).filter((c) => c !== null).join(GAP)
  );
}
