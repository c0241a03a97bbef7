/**
 * Whether a config file is plain data: a file whose evaluation provably
 * ends and touches nothing outside itself, so it can be imported in the
 * CLI's own isolate instead of a worker (./load.ts). Starting a worker costs
 * 12–20 ms of the main thread (a new isolate), which every command that reads
 * the config paid.
 *
 * The test is conservative: it accepts only comments, type-only imports,
 * `const`/`let`/`var`/`type` declarations, `export default`, literals
 * (objects, arrays, strings, numbers, templates without `${}`), names, `.`
 * and `?.` access, spreads, `as`/`satisfies`, arithmetic, and calls of
 * `Deno.env.get("NAME")`. Anything else (a loop, an `await`, any other
 * call, an arrow, a `new`, an assignment, an import of code, a regular
 * expression, a division) sends the file to the worker, which stops a config
 * that never finishes loading.
 * @module
 */

/** Names whose presence sends a file to the worker: they loop, wait, call, define code or write. */
const BANNED = new Set([
  "while",
  "for",
  "do",
  "await",
  "async",
  "function",
  "class",
  "new",
  "yield",
  "import",
  "require",
  "eval",
  "enum",
  "namespace",
  "module",
  "declare",
  "with",
  "delete",
  "throw",
  "try",
  "if",
  "switch",
  "this",
  "super",
  "arguments",
  "Function",
  "globalThis",
  "window",
  "self",
]);

type Token = { kind: "name" | "string" | "number" | "punct"; text: string };

const NAME_START = /[A-Za-z_$]/;
const NAME_PART = /[\w$]/;
const PUNCT = new Set([
  "{",
  "}",
  "[",
  "]",
  "(",
  ")",
  ",",
  ":",
  ";",
  ".",
  "?",
  "*",
  "+",
  "-",
  "%",
  "=",
  "<",
  ">",
  "|",
  "&",
  "!",
]);

/** The file's tokens, or `undefined` when it holds something the test does not read (it then goes to the worker). */
function tokens(source: string): Token[] | undefined {
  const out: Token[] = [];
  let i = 0;
  const n = source.length;
  while (i < n) {
    const c = source[i]!;
    if (c === " " || c === "\t" || c === "\n" || c === "\r") {
      i++;
    } else if (c === "/" && source[i + 1] === "/") {
      const end = source.indexOf("\n", i);
      i = end === -1 ? n : end + 1;
    } else if (c === "/" && source[i + 1] === "*") {
      const end = source.indexOf("*/", i + 2);
      if (end === -1) return undefined;
      i = end + 2;
    } else if (c === '"' || c === "'" || c === "`") {
      // A template right after a name, `)` or `]` is a tagged template: a call.
      const before = out.at(-1);
      if (
        c === "`" && before !== undefined &&
        (before.kind === "name" || before.text === ")" || before.text === "]")
      ) {
        return undefined;
      }
      let j = i + 1;
      for (; j < n && source[j] !== c; j++) {
        if (source[j] === "\\") j++;
        else if (c === "`" && source[j] === "$" && source[j + 1] === "{") return undefined;
        else if (c !== "`" && source[j] === "\n") return undefined;
      }
      if (j >= n) return undefined;
      out.push({ kind: "string", text: source.slice(i, j + 1) });
      i = j + 1;
    } else if (NAME_START.test(c)) {
      let j = i + 1;
      while (j < n && NAME_PART.test(source[j]!)) j++;
      out.push({ kind: "name", text: source.slice(i, j) });
      i = j;
    } else if (c >= "0" && c <= "9") {
      let j = i + 1;
      while (j < n && /[\w.]/.test(source[j]!)) j++;
      out.push({ kind: "number", text: source.slice(i, j) });
      i = j;
    } else if (PUNCT.has(c)) {
      out.push({ kind: "punct", text: c });
      i++;
    } else {
      return undefined; // `/` (a division or a regular expression), `@`, `#`, `\`, non-ASCII names...
    }
  }
  return out;
}

/** Whether `t[i]` opens `Deno.env.get("NAME")` (the only call allowed); its length in tokens, else 0. */
function envGetAt(t: Token[], i: number): number {
  const want = ["Deno", ".", "env", ".", "get", "("];
  for (let k = 0; k < want.length; k++) if (t[i + k]?.text !== want[k]) return 0;
  return t[i + 6]?.kind === "string" && t[i + 7]?.text === ")" ? 8 : 0;
}

const TYPE_PUNCT = new Set(["[", "]", "<", ">", ",", "|", "&", ".", "?"]);

/**
 * Whether `t[from, to)` is a simple type annotation (`number`, `Config["port"]`, `string[]`): names, literals
 * and type punctuation, never two names in a row (a statement that begins on the next line without a `;`).
 */
function isTypeAnnotation(t: readonly Token[], from: number, to: number): boolean {
  if (to <= from) return false;
  for (let k = from; k < to; k++) {
    const { kind, text } = t[k]!;
    if (kind === "punct" ? !TYPE_PUNCT.has(text) : kind === "name" && t[k - 1]?.kind === "name") return false;
  }
  return true;
}

/**
 * Whether the config file's source is plain data (see the module's text): importing it cannot loop, wait,
 * call anything but `Deno.env.get`, load other code, or write anywhere.
 */
export function isPlainConfig(source: string): boolean {
  const t = tokens(source);
  if (t === undefined) return false;
  /**
   * Where the declaration whose initializer may come starts (`const`/`let`/`var`/`type` at the top level), or
   * -1: its `=` must follow its name, or its name and a type annotation, and spends it.
   */
  let declaredAt = -1;
  let depth = 0;
  for (let i = 0; i < t.length; i++) {
    const { kind, text } = t[i]!;
    const prev = t[i - 1]?.text;
    if (kind === "name") {
      if (text === "Deno") {
        const length = envGetAt(t, i);
        if (length === 0) return false;
        i += length - 1;
        continue;
      }
      if (prev === "." && t[i - 2]?.text !== ".") continue; // a property name (not a spread's operand)
      if (BANNED.has(text)) {
        // `import type { X } from "m";` only: erased when the file loads.
        if (text !== "import" || depth !== 0 || t[i + 1]?.text !== "type") return false;
        const end = t.findIndex((x, k) => k > i && x.text === ";");
        const from = end === -1 ? -1 : end - 2;
        if (from <= i || t[from]?.text !== "from" || t[end - 1]?.kind !== "string") return false;
        i = end;
        continue;
      }
      if (depth === 0 && (text === "const" || text === "let" || text === "var" || text === "type")) {
        declaredAt = i;
      }
      if (depth === 0 && text === "export") {
        const next = t[i + 1]?.text;
        if (next !== "default" && next !== "const" && next !== "type" && next !== "interface") return false;
      }
      if (text === "from") return false; // `export ... from`: re-exports load code
      continue;
    }
    if (kind !== "punct") continue;
    if (text === "{" || text === "[") depth++;
    else if (text === "}" || text === "]") depth--;
    else if (text === "(" || text === ")") return false; // a call or a parenthesised expression
    else if (text === ";") declaredAt = -1;
    else if (text === "=") {
      const next = t[i + 1]?.text;
      const compound = prev === "=" || prev === "!" || prev === "<" || prev === ">" || prev === "+" ||
        prev === "-" || prev === "*" || prev === "%" || prev === "|" || prev === "&" || prev === "?";
      if (next === "=" || next === ">" || compound) return false; // comparisons, arrows, compound writes
      // Only a declaration's own initializer: any other `=` writes to something (a global, a property).
      const named = declaredAt >= 0 && t[declaredAt + 1]?.kind === "name" &&
        (i === declaredAt + 2 || (t[declaredAt + 2]?.text === ":" && isTypeAnnotation(t, declaredAt + 3, i)));
      if (!named || depth !== 0) return false;
      declaredAt = -1;
    } else if ((text === "+" || text === "-") && t[i + 1]?.text === text) return false; // ++, --
    if (depth < 0) return false;
  }
  return depth === 0;
}
