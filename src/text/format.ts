/**
 * Small formatters shared by the commands' human output. Pure.
 * @module
 */

/**
 * A byte count for people, in binary units like the limits (`maxBodySize`
 * is in MiB): `0 B`, `812 B`, `1.6 KiB`, `25.0 MiB`, `2.1 GiB`.
 */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(1)} KiB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
  return `${(bytes / 1024 ** 3).toFixed(1)} GiB`;
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
