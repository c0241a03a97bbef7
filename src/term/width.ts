/**
 * How wide text is on a terminal, and how to clip it to fit: wide
 * characters (CJK, Hangul, fullwidth forms, emoji) take two columns,
 * combining marks none. An approximation of wcwidth that is right for the
 * text hooktap prints (ids, paths, names, header values). Pure.
 * @module
 */

// deno-fmt-ignore
const WIDE: readonly [number, number][] = [
  [0x1100, 0x115f], [0x2e80, 0x303e], [0x3041, 0x33ff], [0x3400, 0x4dbf], [0x4e00, 0x9fff],
  [0xa000, 0xa4cf], [0xac00, 0xd7a3], [0xf900, 0xfaff], [0xfe30, 0xfe4f], [0xff00, 0xff60],
  [0xffe0, 0xffe6], [0x1f300, 0x1f64f], [0x1f900, 0x1f9ff], [0x20000, 0x3fffd],
];

function _columns(code: number): number {
  if (code < 0x300) return 1;
  if ((code >= 0x300 && code <= 0x36f) || (code >= 0x200b && code <= 0x200f) || code === 0xfe0f) return 0;
  for (const [lo, hi] of WIDE) if (code >= lo && code <= hi) return 2;
  return 1;
}

/** Printable ASCII only: one column per character (the common case: ids, times, paths, sizes). */
const ASCII = /^[\x20-\x7e]*$/;

/** Columns `text` takes on a terminal (it must hold no control sequences: sanitize first). */
export function displayWidth(text: string): number {
  if (ASCII.test(text)) return text.length; // a request line is laid out per request: no walk by code point
  let width = 0;
  for (const ch of text) width += _columns(ch.codePointAt(0)!);
  return width;
}

/** `text` cut to at most `width` columns, ending with `…` when cut. */
export function clipTo(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  if (width > 0 && ASCII.test(text)) return text.slice(0, width - 1) + "…";
  if (width <= 0) return "";
  let out = "";
  let used = 0;
  for (const ch of text) {
    const w = _columns(ch.codePointAt(0)!);
    if (used + w > width - 1) break;
    out += ch;
    used += w;
  }
  return out + "…";
}

/** `text` padded with spaces to `width` columns (on the right, or the left for `"right"`). */
export function padTo(text: string, width: number, align: "left" | "right" = "left"): string {
  const gap = " ".repeat(Math.max(0, width - displayWidth(text)));
  return align === "left" ? text + gap : gap + text;
}
