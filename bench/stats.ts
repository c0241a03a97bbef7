/**
 * The few statistics the benchmark reports: median with min and max.
 * @module
 */

/** Median, min and max of some measurements. */
export interface Spread {
  median: number;
  min: number;
  max: number;
}

/** The median of `values` (the mean of the middle two when even). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Median, min and max of `values`; NaN for each when there are none. */
export function spread(values: readonly number[]): Spread {
  if (values.length === 0) return { median: NaN, min: NaN, max: NaN };
  return { median: median(values), min: Math.min(...values), max: Math.max(...values) };
}
