/// <reference lib="dom" />
/**
 * The body of an event, in the view that fits it: a collapsible JSON tree,
 * form fields, raw text, or a hex dump for binary bytes. All text.
 * @module
 */
import { h } from "./dom.ts";

/** Bytes shown in the hex view at most (the download has them all). */
export const HEX_LIMIT = 64 * 1024;

/** The body's bytes. */
export function bodyBytes(body: string, encoding: "utf8" | "base64"): Uint8Array {
  if (encoding === "utf8") return new TextEncoder().encode(body);
  const bin = atob(body);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes;
}

/** A hex dump: offset, 16 bytes in hex, the printable ASCII. */
export function hexView(bytes: Uint8Array): HTMLElement {
  const lines: string[] = [];
  const n = Math.min(bytes.length, HEX_LIMIT);
  for (let off = 0; off < n; off += 16) {
    const row = bytes.subarray(off, Math.min(off + 16, n));
    const hex = Array.from(row, (b) => b.toString(16).padStart(2, "0")).join(" ");
    const ascii = Array.from(row, (b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : ".")).join("");
    lines.push(`${off.toString(16).padStart(8, "0")}  ${hex.padEnd(47)}  ${ascii}`);
  }
  const pre = h("pre", { class: "hex" });
  pre.textContent = lines.join("\n") +
    (bytes.length > n ? `\n… ${bytes.length - n} more bytes (download them)` : "");
  return pre;
}

/** A JSON value as a tree of `<details>` (objects and arrays fold; the first two levels start open). */
export function jsonTree(value: unknown, key?: string, depth = 0): HTMLElement {
  const label = key === undefined ? null : h("span", { class: "key" }, JSON.stringify(key), ": ");
  if (value !== null && typeof value === "object") {
    const entries = Array.isArray(value)
      ? value.map((v, i) => [String(i), v] as const)
      : Object.entries(value as Record<string, unknown>);
    const summary = h(
      "summary",
      {},
      label,
      h("span", { class: "punct" }, Array.isArray(value) ? `[${entries.length}]` : `{${entries.length}}`),
    );
    const details = h("details", { class: "json", open: depth < 2 }, summary);
    const list = h("div", { class: "children" });
    for (const [k, v] of entries) list.append(jsonTree(v, Array.isArray(value) ? undefined : k, depth + 1));
    details.append(list);
    return details;
  }
  const cls = value === null ? "null" : typeof value;
  return h(
    "div",
    { class: "leaf" },
    label,
    h("span", { class: `v-${cls}` }, JSON.stringify(value) ?? "undefined"),
  );
}

/** Form fields of an `application/x-www-form-urlencoded` body, in order. */
export function formView(text: string): HTMLElement {
  const table = h("table", { class: "kv" });
  for (const [k, v] of new URLSearchParams(text)) table.append(h("tr", {}, h("th", {}, k), h("td", {}, v)));
  return table;
}

/** Raw text, markers for invisible characters. */
export function textView(text: string): HTMLElement {
  return h("pre", { class: "raw" }, text);
}

/** Which views a body offers, best first. */
export function viewsFor(
  body: string,
  encoding: "utf8" | "base64",
  contentType: string | undefined,
): ("json" | "form" | "text" | "hex")[] {
  if (encoding === "base64") return ["hex"];
  const views: ("json" | "form" | "text" | "hex")[] = [];
  try {
    if (body.trim() !== "") {
      JSON.parse(body);
      views.push("json");
    }
  } catch { /* not JSON */ }
  if (/application\/x-www-form-urlencoded/i.test(contentType ?? "")) views.push("form");
  views.push("text", "hex");
  return views;
}
