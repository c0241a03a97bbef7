/**
 * Keeps payload bytes from acting on the user's terminal: control
 * characters (ESC, BEL, backspace, carriage return, C1 codes...) and
 * bidirectional overrides are shown escaped (`\x1b`), never emitted raw.
 * A hostile webhook must not be able to rewrite the user's screen.
 * @module
 */

// C0 controls, DEL, C1 controls, and the Unicode bidi controls, invisible format characters and line
// separators (U+061C, U+200B–U+200F, U+2028–U+202E, U+2060–U+2069, U+FEFF): matching them is the point.
// deno-lint-ignore no-control-regex
const UNSAFE = /[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;
// deno-lint-ignore no-control-regex
const UNSAFE_KEEP_LINES = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;
/** What JSON.stringify leaves raw but a terminal acts on (C1 controls) or hides (bidi, invisible). */
const UNSAFE_IN_JSON = /[\x80-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;
const UNSAFE_IN_JSON_TEST = /[\x80-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/;

/**
 * `text` (JSON or a view already made safe) with C1 controls and bidi or
 * invisible format characters written as JSON escapes (`\u009b`): still
 * the same JSON, but inert on a terminal. Only for a terminal; pipes get
 * the exact bytes.
 */
export function escapeForTerminal(text: string): string {
  if (!UNSAFE_IN_JSON_TEST.test(text)) return text;
  return text.replace(UNSAFE_IN_JSON, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

function escapeChar(ch: string): string {
  const code = ch.charCodeAt(0);
  if (code === 0x0a) return "\\n";
  if (code === 0x0d) return "\\r";
  if (code === 0x09) return "\\t";
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, "0")}`
    : `\\u${code.toString(16).padStart(4, "0")}`;
}

/** `text` with every control character escaped; safe on one terminal line. */
export function safeLine(text: string): string {
  return text.replace(UNSAFE, escapeChar);
}

/** `text` with control characters escaped but newlines and tabs kept. */
export function safeBlock(text: string): string {
  return text.replace(UNSAFE_KEEP_LINES, escapeChar);
}

const NAMES: Record<number, string> = {
  0x1b: "ESC",
  0x07: "BEL",
  0x08: "backspace",
  0x0d: "carriage return",
  0x00: "NUL",
};

/**
 * The first character of `text` that must not reach a terminal raw, named
 * with its position (`ESC at character 12`), or `undefined` when `text` is
 * safe to print as is (tabs and newlines are fine).
 */
export function unsafeForTerminal(text: string): string | undefined {
  const found = UNSAFE_KEEP_LINES.exec(text);
  UNSAFE_KEEP_LINES.lastIndex = 0;
  if (found === null) return undefined;
  const code = found[0].charCodeAt(0);
  const name = NAMES[code] ?? `the control character ${escapeChar(found[0])}`;
  return `${name} at character ${found.index + 1}`;
}

/** Why raw bytes must not go to a terminal (binary data, or what `unsafeForTerminal` finds), or `undefined`. */
export function terminalRisk(bytes: Uint8Array): string | undefined {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return "it is binary data";
  }
  const at = unsafeForTerminal(text);
  return at === undefined ? undefined : `it holds ${at}, which would act on your terminal`;
}
