/**
 * Small formatters shared by the commands' human output. Pure.
 * @module
 */

/** A byte count for people: `0 B`, `812 B`, `1.6 kB`, `25.0 MB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} kB`;
  if (bytes < 1_000_000_000) return `${(bytes / 1_000_000).toFixed(1)} MB`;
  return `${(bytes / 1_000_000_000).toFixed(1)} GB`;
}

function two(n: number): string {
  return String(n).padStart(2, "0");
}

/** `HH:MM:SS` in local time. */
export function formatClock(date: Date): string {
  return `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`;
}

/** `YYYY-MM-DD HH:MM:SS` in local time. */
export function formatLocalTime(date: Date): string {
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${formatClock(date)}`;
}

/** `n thing` or `n things`. */
export function plural(n: number, thing: string): string {
  return `${n} ${thing}${n === 1 ? "" : "s"}`;
}
