/**
 * Pretty-prints JSON text for `hooktap inspect` without re-serialising it:
 * tokens are kept exactly as sent (big numbers keep their digits, `1.0`
 * stays `1.0`, repeated keys stay), only whitespace changes. Pure.
 * @module
 */
import type { Colors } from "./colors.ts";

/**
 * `text` (which must be valid JSON) re-indented by two spaces, with
 * keys, strings, numbers and literals painted by `colors`. String contents
 * are passed through `escape` (to neutralise control characters).
 */
export function prettyJson(text: string, colors: Colors, escape: (s: string) => string): string {
  const out: string[] = [];
  let depth = 0;
  const newline = () => "\n" + "  ".repeat(depth);
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      const token = escape(text.slice(i, j + 1));
      let k = j + 1;
      while (k < text.length && /\s/.test(text[k]!)) k++;
      out.push(text[k] === ":" ? colors.blue(token) : colors.green(token));
      i = j + 1;
    } else if (ch === "{" || ch === "[") {
      const close = ch === "{" ? "}" : "]";
      let k = i + 1;
      while (k < text.length && /\s/.test(text[k]!)) k++;
      if (text[k] === close) {
        out.push(ch + close);
        i = k + 1;
      } else {
        depth++;
        out.push(ch + newline());
        i++;
      }
    } else if (ch === "}" || ch === "]") {
      depth--;
      out.push(newline() + ch);
      i++;
    } else if (ch === ",") {
      out.push("," + newline());
      i++;
    } else if (ch === ":") {
      out.push(": ");
      i++;
    } else if (/\s/.test(ch)) {
      i++;
    } else {
      let j = i;
      while (j < text.length && /[^\s,:{}[\]"]/.test(text[j]!)) j++;
      const token = escape(text.slice(i, j));
      out.push(/^(true|false|null)$/.test(token) ? colors.magenta(token) : colors.yellow(token));
      i = Math.max(j, i + 1);
    }
  }
  return out.join("");
}
