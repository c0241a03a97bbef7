/**
 * A JSON body read for showing, true to its text: numbers keep the digits
 * they were sent with (`12345678901234567890` is not rounded to a double,
 * `1.0` stays `1.0`), a key given twice is kept twice, in order (JSON.parse
 * keeps only the last), and a value nested deeper than
 * {@linkcode MAX_TREE_DEPTH} is kept as its text, so no body can exhaust the
 * page's stack. Pure.
 * @module
 */

/** One JSON value, as its text has it. */
export type JsonNode =
  | { kind: "object"; entries: [string, JsonNode][] }
  | { kind: "array"; items: JsonNode[] }
  | { kind: "string"; value: string }
  | { kind: "number" | "literal"; text: string }
  /** A value nested deeper than the tree goes: its text. */
  | { kind: "deep"; text: string };

/** Levels of nesting the tree shows; deeper values are shown as their text. */
export const MAX_TREE_DEPTH = 64;

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const LITERAL = /true|false|null/y;
const STRING = /"[^"\\]*(?:\\.[^"\\]*)*"/y;

/**
 * The tree of `text`, which must be JSON (`JSON.parse` accepted it).
 * @throws {SyntaxError} when it is not.
 */
export function parseJsonSource(text: string): JsonNode {
  let at = 0;
  const fail = (): never => {
    throw new SyntaxError(`not JSON at offset ${at}`);
  };
  const space = () => {
    while (at < text.length && " \t\n\r".includes(text[at]!)) at++;
  };
  const token = (re: RegExp): string => {
    re.lastIndex = at;
    const m = re.exec(text) ?? fail();
    at = re.lastIndex;
    return m[0];
  };
  const expect = (ch: string) => {
    space();
    if (text[at] !== ch) fail();
    at++;
  };
  /** Moves past one value without building it (iteratively: any depth). */
  const skip = () => {
    let depth = 0;
    do {
      space();
      const ch = text[at];
      if (ch === '"') token(STRING);
      else if (ch === "{" || ch === "[") (at++, depth++);
      else if (ch === "}" || ch === "]") (at++, depth--);
      else if (ch === "," || ch === ":") at++;
      else if (ch === "t" || ch === "f" || ch === "n") token(LITERAL);
      else if (ch !== undefined) token(NUMBER);
      else fail();
    } while (depth > 0);
  };
  const value = (depth: number): JsonNode => {
    space();
    const ch = text[at];
    if ((ch === "{" || ch === "[") && depth >= MAX_TREE_DEPTH) {
      const start = at;
      skip();
      return { kind: "deep", text: text.slice(start, at) };
    }
    if (ch === "{") {
      at++;
      const entries: [string, JsonNode][] = [];
      space();
      if (text[at] === "}") return (at++, { kind: "object", entries });
      do {
        space();
        const key = JSON.parse(token(STRING)) as string;
        expect(":");
        entries.push([key, value(depth + 1)]);
        space();
      } while (text[at++] === ",");
      if (text[at - 1] !== "}") fail();
      return { kind: "object", entries };
    }
    if (ch === "[") {
      at++;
      const items: JsonNode[] = [];
      space();
      if (text[at] === "]") return (at++, { kind: "array", items });
      do {
        items.push(value(depth + 1));
        space();
      } while (text[at++] === ",");
      if (text[at - 1] !== "]") fail();
      return { kind: "array", items };
    }
    if (ch === '"') return { kind: "string", value: JSON.parse(token(STRING)) as string };
    if (ch === "t" || ch === "f" || ch === "n") return { kind: "literal", text: token(LITERAL) };
    return { kind: "number", text: token(NUMBER) };
  };
  const root = value(0);
  space();
  if (at !== text.length) fail();
  return root;
}
