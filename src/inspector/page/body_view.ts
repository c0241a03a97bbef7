/// <reference lib="dom" />
/**
 * The body of an event, in the view that fits it: a collapsible JSON tree,
 * form fields, raw text, or a hex dump for binary bytes. All text.
 * @module
 */
import { h } from "./dom.ts";
import { type JsonNode, MAX_TREE_DEPTH } from "./json_source.ts";

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

/** Children of an object or array made at a time (a button shows the next ones). */
export const JSON_CHUNK = 500;

/**
 * A JSON body as a tree of `<details>` (objects and arrays fold; the first two levels start open), true to its
 * text (./json_source.ts): numbers as sent, a repeated key shown each time (marked), a value nested too deep
 * for the tree as its text.
 */
export function jsonTree(node: JsonNode, key?: string, depth = 0, repeated = false): HTMLElement {
  const label = key === undefined ? null : h(
    "span",
    {
      class: repeated ? "key repeated" : "key",
      title: repeated ? "this key is given more than once" : undefined,
    },
    JSON.stringify(key),
    ": ",
  );
  if (node.kind === "object" || node.kind === "array") {
    const count = node.kind === "array" ? node.items.length : node.entries.length;
    const summary = h(
      "summary",
      {},
      label,
      h("span", { class: "punct" }, node.kind === "array" ? `[${count}]` : `{${count}}`),
    );
    const details = h("details", { class: "json", open: depth < 2 }, summary);
    const list = h("div", { class: "children" });
    details.append(list);
    let childAt: (i: number) => HTMLElement;
    if (node.kind === "array") childAt = (i) => jsonTree(node.items[i]!, undefined, depth + 1);
    else {
      const seen = new Map<string, number>();
      for (const [k] of node.entries) seen.set(k, (seen.get(k) ?? 0) + 1);
      childAt = (i) => {
        const [k, v] = node.entries[i]!;
        return jsonTree(v, k, depth + 1, seen.get(k)! > 1);
      };
    }
    // Children are made when their parent is first opened, JSON_CHUNK at a time: a large body opens at once.
    const build = (from: number) => {
      const to = Math.min(count, from + JSON_CHUNK);
      for (let i = from; i < to; i++) list.append(childAt(i));
      if (to === count) return;
      const more = h(
        "button",
        { type: "button", class: "json-more" },
        `show ${Math.min(JSON_CHUNK, count - to)} more (${to} of ${count} shown)`,
      );
      more.addEventListener("click", () => {
        more.remove();
        build(to);
      });
      list.append(more);
    };
    if (depth < 2) build(0);
    else details.addEventListener("toggle", () => details.open && list.childElementCount === 0 && build(0));
    return details;
  }
  if (node.kind === "deep") {
    return h(
      "div",
      { class: "leaf" },
      label,
      h("span", { class: "dim" }, `(nested deeper than ${MAX_TREE_DEPTH} levels: as text) `),
      h("span", { class: "v-deep" }, node.text),
    );
  }
  const [cls, text] = node.kind === "string"
    ? ["string", JSON.stringify(node.value)]
    : node.kind === "number"
    ? ["number", node.text]
    : [node.text === "null" ? "null" : "boolean", node.text];
  return h("div", { class: "leaf" }, label, h("span", { class: `v-${cls}` }, text));
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
