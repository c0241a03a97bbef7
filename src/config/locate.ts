/**
 * Where a config problem is written: the line of a field path
 * (`endpoints[1].methd`) in the config's source text, found by walking the
 * object and array literals from `export default` (through `defineConfig(…)`,
 * parentheses and top-level `const` names). The walk is exact or says
 * nothing: a spread that could supply or override the field, a computed key,
 * a call, a template with `${}`, a regular expression or a division on the
 * way, and the line is left out (the message still names the field).
 * @module
 */
import { CONFIG_FIELDS } from "./validate.ts";

type Tok = { kind: "name" | "string" | "number" | "punct"; text: string; line: number };

/** The source's tokens (comments and spaces dropped), or `undefined` for what this reader does not take. */
function _tokens(source: string): Tok[] | undefined {
  const out: Tok[] = [];
  let line = 1;
  let i = 0;
  const n = source.length;
  while (i < n) {
    const c = source[i]!;
    if (c === "\n") {
      line++;
      i++;
    } else if (c === " " || c === "\t" || c === "\r") {
      i++;
    } else if (c === "/" && source[i + 1] === "/") {
      const end = source.indexOf("\n", i);
      i = end === -1 ? n : end;
    } else if (c === "/" && source[i + 1] === "*") {
      const end = source.indexOf("*/", i + 2);
      if (end === -1) return undefined;
      for (let k = i; k < end; k++) if (source[k] === "\n") line++;
      i = end + 2;
    } else if (c === '"' || c === "'" || c === "`") {
      let j = i + 1;
      for (; j < n && source[j] !== c; j++) {
        if (source[j] === "\\") j++;
        else if (c === "`" && source[j] === "$" && source[j + 1] === "{") return undefined;
      }
      if (j >= n) return undefined;
      const text = source.slice(i, j + 1);
      out.push({ kind: "string", text, line });
      for (const ch of text) if (ch === "\n") line++;
      i = j + 1;
    } else if (/[A-Za-z_$]/.test(c)) {
      let j = i + 1;
      while (j < n && /[\w$]/.test(source[j]!)) j++;
      out.push({ kind: "name", text: source.slice(i, j), line });
      i = j;
    } else if (c >= "0" && c <= "9") {
      let j = i + 1;
      while (j < n && /[\w.]/.test(source[j]!)) j++;
      out.push({ kind: "number", text: source.slice(i, j), line });
      i = j;
    } else if ("{}[](),:;.?*+-%=<>|&!".includes(c)) {
      out.push({ kind: "punct", text: c, line });
      i++;
    } else {
      return undefined; // `/` (a division or a regular expression), `@`, `#`, non-ASCII names...
    }
  }
  return out;
}

const OPEN = new Set(["{", "[", "("]);
const CLOSE = new Set(["}", "]", ")"]);

/** The index after the expression starting at `i`: the next `,` or closer at its own depth. */
function _skip(t: readonly Tok[], i: number): number {
  let depth = 0;
  for (; i < t.length; i++) {
    const x = t[i]!.text;
    if (t[i]!.kind !== "punct") continue;
    if (OPEN.has(x)) depth++;
    else if (CLOSE.has(x)) {
      if (depth === 0) return i;
      depth--;
    } else if (x === "," && depth === 0) return i;
  }
  return i;
}

const _isSpread = (t: readonly Tok[], i: number) =>
  t[i]?.text === "." && t[i + 1]?.text === "." && t[i + 2]?.text === ".";

/** A key's name: a name, a number, or a string without escapes; `undefined` for anything else. */
function _key(tok: Tok): string | undefined {
  if (tok.kind === "name" || tok.kind === "number") return tok.text;
  if (tok.kind === "string" && !tok.text.includes("\\") && tok.text[0] !== "`") return tok.text.slice(1, -1);
  return undefined;
}

type Entry = { key: string; keyAt: number; valueAt: number };
/** An object literal's entries; `opaque` when one of them may hold any key (a spread, a computed key). */
type ObjectLit = { entries: Entry[]; spreads: number[]; opaque: boolean };

function _object(t: readonly Tok[], open: number): ObjectLit | undefined {
  const out: ObjectLit = { entries: [], spreads: [], opaque: false };
  let j = open + 1;
  while (j < t.length && t[j]!.text !== "}") {
    if (_isSpread(t, j)) {
      out.spreads.push(j);
      j = _skip(t, j + 3);
    } else {
      const key = _key(t[j]!);
      const next = t[j + 1]?.text;
      if (key !== undefined && next === ":") {
        out.entries.push({ key, keyAt: j, valueAt: j + 2 });
      } else if (key !== undefined && t[j]!.kind === "name" && (next === "," || next === "}")) {
        out.entries.push({ key, keyAt: j, valueAt: j }); // shorthand `{ port }`: the name's value
      } else {
        out.opaque = true; // `[computed]: …`, a method, an accessor
      }
      j = _skip(t, j);
    }
    if (t[j]?.text === ",") j++;
    else if (t[j]?.text !== "}") return undefined;
  }
  return j < t.length ? out : undefined;
}

/** An array literal's element starts, up to its first spread (after which indexes are unknown). */
function _array(t: readonly Tok[], open: number): number[] | undefined {
  const starts: number[] = [];
  let j = open + 1;
  while (j < t.length && t[j]!.text !== "]") {
    if (_isSpread(t, j)) return starts;
    starts.push(j);
    j = _skip(t, j);
    if (t[j]?.text === ",") j++;
    else if (t[j]?.text !== "]") return undefined;
  }
  return j < t.length ? starts : undefined;
}

/** Top-level `const NAME = …` and `export const NAME = …`: where each value starts. */
function _consts(t: readonly Tok[]): Map<string, number> {
  const out = new Map<string, number>();
  let depth = 0;
  for (let i = 0; i < t.length; i++) {
    const { kind, text } = t[i]!;
    if (kind === "punct" && OPEN.has(text)) depth++;
    else if (kind === "punct" && CLOSE.has(text)) depth--;
    else if (depth === 0 && kind === "name" && text === "const" && t[i + 1]?.kind === "name") {
      // Its `=`: after the name, or after a type annotation (which may hold brackets of its own).
      let d = 0;
      for (let k = i + 2; k < t.length; k++) {
        const x = t[k]!.text;
        if (OPEN.has(x)) d++;
        else if (CLOSE.has(x)) d--;
        else if (d === 0 && (x === "=" || x === ";")) {
          if (x === "=" && t[k + 1]?.text !== "=" && !out.has(t[i + 1]!.text)) out.set(t[i + 1]!.text, k + 1);
          break;
        }
      }
    }
  }
  return out;
}

type Node = { kind: "object" | "array"; at: number };

/** The literal the expression at `i` is, through parentheses, `defineConfig(…)` and const names. */
function _value(t: readonly Tok[], i: number, consts: Map<string, number>, hops = 0): Node | undefined {
  if (hops > 16) return undefined;
  while (t[i]?.text === "(") i++;
  const tok = t[i];
  if (tok === undefined) return undefined;
  if (tok.text === "{" && tok.kind === "punct") return { kind: "object", at: i };
  if (tok.text === "[" && tok.kind === "punct") return { kind: "array", at: i };
  if (tok.kind !== "name") return undefined;
  if (tok.text === "defineConfig" && t[i + 1]?.text === "(") return _value(t, i + 2, consts, hops + 1);
  // A name alone (then `,`, a closer, `;`, `as`, `satisfies`): a top-level const's literal.
  const next = t[i + 1];
  const alone = next === undefined ||
    (next.kind === "punct" && [",", "}", "]", ")", ";"].includes(next.text)) ||
    (next.kind === "name" && (next.text === "as" || next.text === "satisfies" || next.line > tok.line));
  const at = consts.get(tok.text);
  return alone && at !== undefined ? _value(t, at, consts, hops + 1) : undefined;
}

/** `endpoints[1].forward.when` as its segments. */
function _segments(path: string): (string | number)[] {
  return [...path.matchAll(/\[(\d+)\]|\.?([A-Za-z_$][\w$]*)/g)].map((m) =>
    m[1] !== undefined ? Number(m[1]) : m[2]!
  );
}

/**
 * The 1-based line where the config's field `path` is written in `source`, or the line of the object
 * literal that lacks it; `undefined` when the walk from `export default` cannot tell for sure.
 *
 * @example
 * ```ts
 * lineOf('export default {\n  port: "x",\n};\n', "port"); // 2
 * ```
 */
export function lineOf(source: string, path: string): number | undefined {
  const t = _tokens(source);
  const at = t === undefined ? undefined : _fieldAt(t, path);
  return at === undefined ? undefined : t![at]!.line;
}

/**
 * The environment variable the config's field `path` reads, when its value is written as
 * `process.env.NAME`, `process.env["NAME"]` or `Deno.env.get("NAME")` (alone, without a fallback), else
 * `undefined`: a secret that is unset can then be named, not only its field.
 */
export function envNameOf(source: string, path: string): string | undefined {
  const t = _tokens(source);
  const key = t === undefined ? undefined : _fieldAt(t, path, true);
  if (key === undefined) return undefined;
  const v = t!.slice(key, key + 7).map((x) => x.text);
  const ends = (n: number) => [",", "}", undefined].includes(v[n]);
  if (v[0] === "process" && v[1] === "." && v[2] === "env") {
    if (v[3] === "." && t![key + 4]?.kind === "name" && ends(5)) return v[4];
    if (v[3] === "[" && t![key + 4]?.kind === "string" && v[5] === "]" && ends(6)) return _unquote(v[4]!);
  }
  if (v[0] === "Deno" && v[1] === "." && v[2] === "env" && v[3] === "." && v[4] === "get") {
    const args = t!.slice(key + 5, key + 9).map((x) => x.text);
    if (
      args[0] === "(" && t![key + 6]?.kind === "string" && args[2] === ")" &&
      [",", "}", undefined].includes(args[3])
    ) {
      return _unquote(args[1]!);
    }
  }
  return undefined;
}

function _unquote(text: string): string | undefined {
  const inner = text.slice(1, -1);
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(inner) ? inner : undefined;
}

/**
 * The token where field `path` is written (its key; its value with `value`), or for a missing field the
 * object that lacks it; `undefined` when the walk from `export default` cannot tell for sure.
 */
function _fieldAt(t: readonly Tok[], path: string, value = false): number | undefined {
  const exported = t.findIndex((x, k) => x.text === "export" && t[k + 1]?.text === "default");
  if (exported === -1) return undefined;
  const consts = _consts(t);
  let node = _value(t, exported + 2, consts);
  const segments = _segments(path);
  for (let s = 0; s < segments.length; s++) {
    if (node === undefined) return undefined;
    const seg = segments[s]!;
    const last = s === segments.length - 1;
    if (typeof seg === "number") {
      if (node.kind !== "array") return undefined;
      const start = _array(t, node.at)?.[seg];
      if (start === undefined) return undefined;
      if (last) return start;
      node = _value(t, start, consts);
      continue;
    }
    if (node.kind !== "object") return undefined;
    const object = _object(t, node.at);
    if (object === undefined || object.opaque) return undefined;
    const entry = object.entries.findLast((e) => e.key === seg);
    if (entry === undefined) {
      // Missing: the object that lacks it, when no spread could hold it.
      return last && !value && object.spreads.length === 0 ? node.at : undefined;
    }
    if (object.spreads.some((at) => at > entry.keyAt)) return undefined; // a later spread may override it
    if (last) return value ? entry.valueAt : entry.keyAt;
    node = _value(t, entry.valueAt, consts);
  }
  return undefined;
}

/** The field path an issue starts with (`endpoints[1].methd is not …`), when it is a config field's. */
export function issuePath(issue: string): string | undefined {
  const m = issue.match(/^[A-Za-z_$][\w$]*(?:\[\d+\]|\.[A-Za-z_$][\w$]*)*/);
  if (m === null) return undefined;
  const first = m[0].match(/^[A-Za-z_$][\w$]*/)![0];
  return CONFIG_FIELDS.includes(first) ? m[0] : undefined;
}

/** `issues`, each that names a field the source locates followed by ` (line N)`. */
export function withLines(issues: readonly string[], source: string): string[] {
  return issues.map((issue) => {
    const path = issuePath(issue);
    const line = path === undefined ? undefined : lineOf(source, path);
    return line === undefined ? issue : `${issue} (line ${line})`;
  });
}
