/// <reference lib="dom" />
/**
 * The page's only way to make DOM: elements with text content, never HTML.
 * Control characters and bidi overrides in payload text are shown as
 * visible markers (`⟨U+202E⟩`) so a payload cannot reorder what you read.
 * @module
 */

/** Characters shown as markers: C0/C1 controls (not tab or newline), bidi controls, zero-width ones. */
const INVISIBLE =
  // deno-lint-ignore no-control-regex
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u061C\u200B-\u200F\u2028-\u202E\u2060-\u2069\uFEFF]/g;

/** The marker text of an invisible character. */
export function markerOf(ch: string): string {
  return `⟨U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}⟩`;
}

/** `text` as DOM nodes: plain text nodes, with each invisible character as a marked `<span>`. */
export function visible(text: string): Node {
  const frag = document.createDocumentFragment();
  let last = 0;
  for (const m of text.matchAll(INVISIBLE)) {
    if (m.index > last) frag.append(document.createTextNode(text.slice(last, m.index)));
    const mark = document.createElement("span");
    mark.className = "ctl";
    mark.title = "invisible character, shown as its code point";
    mark.textContent = markerOf(m[0]);
    frag.append(mark);
    last = m.index + m[0].length;
  }
  if (last < text.length) frag.append(document.createTextNode(text.slice(last)));
  return frag;
}

type Child = Node | string | null | undefined | false;

/** An element with attributes (never `innerHTML`) and children (strings become visible text). */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | boolean | undefined> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    el.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(typeof child === "string" ? visible(child) : child);
  }
  return el;
}

/** Human size: `512 B`, `1.5 KiB`. */
export function formatSize(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** Local time of an ISO string: `14:03:07` today, else `2024-05-01 14:03`. */
export function formatTime(iso: string): string {
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, "0");
  const clock = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  const today = new Date();
  if (d.toDateString() === today.toDateString()) return clock;
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${clock}`;
}
