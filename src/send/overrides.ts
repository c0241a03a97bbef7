/**
 * What a user may change in an event before it goes out, one meaning for
 * every command that sends (replay, bulk replay, `--undelivered`, the
 * inspector, `trigger`): `-X METHOD`, `-H "Name: value"` (replaces
 * every header of that name in the place of the first; an empty value
 * removes), `--body-file`, `--set path=value` (a JSON field, or a form field
 * of an `application/x-www-form-urlencoded` body; the value is read as JSON
 * when it parses, else as text; a path that does not exist is an error
 * unless `--set-new`, which creates it). Pure.
 * @module
 */
import { UsageError } from "../errors.ts";

/** The changes asked for. */
export interface Overrides {
  /** `-X`: the method to send instead of the stored one. */
  method?: string;
  /** `-H`: `[name, value]` pairs; an empty value removes the header. @default [] */
  headers?: readonly [string, string][];
  /** `--body-file`: the bytes to send instead of the stored body. */
  body?: Uint8Array;
  /** `--set path=value` changes, in order. @default [] */
  set?: readonly string[];
  /** `--set-new`: a `--set` path that does not exist is added instead of refused. @default false */
  setNew?: boolean;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Whether `name` is an HTTP header name (a token, RFC 9110): what `-H` and the inspector's replay send. */
export function isHeaderName(name: string): boolean {
  return TOKEN.test(name);
}

/** What an HTTP field value may not hold (RFC 9110 §5.5): a control character but HTAB, or DEL. */
// deno-lint-ignore no-control-regex
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f]/;
/** A character a header cannot carry as one byte (beyond Latin-1: it would go out as another byte). */
const BEYOND_LATIN1 = /[\u0100-\u{10FFFF}]/u;

function _codePoint(char: string): string {
  return `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
}

/**
 * What makes `value` unfit for a header value, or `undefined` when it is fit: a line break (CR, LF), another
 * control character (0x00–0x1F but HTAB, and 0x7F), or a character beyond Latin-1. A field value holds
 * visible ASCII, spaces, tabs and obs-text (0x80–0xFF) only (RFC 9110 §5.5). Names the character's code point
 * (the value itself is not repeated: it is the control sequence that must not reach a terminal).
 */
export function headerValueProblem(value: string): string | undefined {
  const control = CONTROL.exec(value)?.[0];
  if (control !== undefined) {
    return control === "\r" || control === "\n"
      ? `a line break (${_codePoint(control)})`
      : `a control character (${_codePoint(control)})`;
  }
  const wide = BEYOND_LATIN1.exec(value)?.[0];
  return wide === undefined ? undefined : `a character beyond Latin-1 (${_codePoint(wide)})`;
}

/** How a header value may be written, for the messages that refuse one. */
export const HEADER_VALUE_RULE =
  "a header value is one line of Latin-1 text: visible characters, spaces and tabs";

/**
 * Parses a `-H "Name: value"` option.
 * @throws {UsageError} when it has no colon, the name is not a header token, or the value holds what a header
 * value cannot ({@linkcode headerValueProblem}).
 */
export function parseHeaderOption(text: string): [string, string] {
  const colon = text.indexOf(":");
  const name = colon === -1 ? "" : text.slice(0, colon).trim();
  if (!TOKEN.test(name)) {
    throw new UsageError(
      `-H expects "Name: value" (an empty value removes the header), got "${text}".`,
    );
  }
  const value = text.slice(colon + 1).trim();
  const problem = headerValueProblem(value);
  if (problem !== undefined) {
    throw new UsageError(`-H ${name}: the value has ${problem}; ${HEADER_VALUE_RULE}.`);
  }
  return [name, value];
}

/**
 * Checks a method given with `-X`.
 * @throws {UsageError} when it is not an HTTP method token.
 */
export function checkMethod(method: string): void {
  if (!TOKEN.test(method)) {
    throw new UsageError(
      `-X/--method must be an HTTP method like POST or PUT (letters, no spaces), got "${method}".`,
    );
  }
}

/** Whether any change is asked for (besides re-signing). */
export function changesBody(overrides: Overrides): boolean {
  return overrides.body !== undefined || (overrides.set ?? []).length > 0;
}

/**
 * `headers` with each override applied: the value replaces the first header
 * of that name (any case) in its place, keeping its case, and later repeats
 * go; a name not there is added at the end; an empty value removes them all.
 */
export function applyHeaderOverrides(
  headers: readonly [string, string][],
  overrides: readonly [string, string][] = [],
): [string, string][] {
  let out = headers.map(([n, v]): [string, string] => [n, v]);
  for (const [name, value] of overrides) {
    const lower = name.toLowerCase();
    const at = out.findIndex(([n]) => n.toLowerCase() === lower);
    if (value === "") {
      out = out.filter(([n]) => n.toLowerCase() !== lower);
    } else if (at === -1) out.push([name, value]);
    else {
      const kept = out[at]![0];
      out = out.filter(([n], i) => i === at || n.toLowerCase() !== lower);
      out[out.findIndex(([n]) => n === kept)] = [kept, value];
    }
  }
  return out;
}

/**
 * `changed` (a re-signed copy of `original`) with every header that was in
 * `original` back in its place and case; new ones at the end. Signing
 * helpers append their header; the sender's order is kept this way.
 */
export function keepPlaces(
  original: readonly [string, string][],
  changed: readonly [string, string][],
): [string, string][] {
  const values = new Map<string, string[]>();
  for (const [n, v] of changed) {
    const k = n.toLowerCase();
    const list = values.get(k);
    if (list === undefined) values.set(k, [v]);
    else list.push(v);
  }
  const out: [string, string][] = [];
  const placed = new Set<string>();
  for (const [n] of original) {
    const k = n.toLowerCase();
    const next = values.get(k)?.shift();
    if (next !== undefined) out.push([n, next]);
    placed.add(k);
  }
  for (const [n] of changed) {
    const k = n.toLowerCase();
    if (placed.has(k)) {
      const rest = values.get(k);
      if (rest !== undefined && rest.length > 0) out.push([n, rest.shift()!]);
      continue;
    }
    out.push([n, values.get(k)!.shift()!]);
  }
  return out;
}

function _split(item: string): { path: string; value: unknown; raw: string } {
  const eq = item.indexOf("=");
  if (eq <= 0) throw new UsageError(`--set expects path=value, like data.object.amount=5000; got "${item}"`);
  const raw = item.slice(eq + 1);
  let value: unknown = raw;
  try {
    value = JSON.parse(raw);
  } catch { /* a bare string */ }
  return { path: item.slice(0, eq), value, raw };
}

/**
 * Sets `path` (`a.b[0].c`) in `root` to `value`.
 * @throws {UsageError} when a step is not an object, or the field does not exist and `add` is false.
 */
export function setJsonField(root: unknown, path: string, value: unknown, add = false): void {
  const keys = path.replace(/\[(\d+)\]/g, ".$1").split(".").filter((k) => k !== "");
  if (keys.length === 0) {
    throw new UsageError(`--set needs a field path before "=", like data.object.amount=5000`);
  }
  let at = root as Record<string, unknown>;
  for (const [i, key] of keys.entries()) {
    if (typeof at !== "object" || at === null) {
      throw new UsageError(
        `--set ${path}: "${keys.slice(0, i).join(".")}" is not an object or array in the body`,
      );
    }
    if (!add && !Object.hasOwn(at, key)) {
      const fields = Object.keys(at);
      const where = i === 0 ? "the body" : keys.slice(0, i).join(".");
      throw new UsageError(
        `--set ${path}: the body has no field "${keys.slice(0, i + 1).join(".")}" (${where} has ${
          fields.length === 0
            ? "no fields"
            : fields.slice(0, 12).join(", ") + (fields.length > 12 ? ", ..." : "")
        }); check the path, or add --set-new to create it`,
      );
    }
    if (i === keys.length - 1) at[key] = value;
    else {
      if (add && (at[key] === undefined || at[key] === null)) at[key] = {};
      at = at[key] as Record<string, unknown>;
    }
  }
}

/**
 * The body with the `--set` changes: fields of a JSON body (re-encoded with
 * the indentation of its first indented line when it was pretty-printed,
 * compact otherwise), or fields of a form body (`a=1&b=2`: the field's first
 * occurrence changed in place, its repeats removed; a new one at the end).
 * @throws {UsageError} naming the bad item and the fix.
 */
export function applySets(
  body: Uint8Array,
  contentType: string | undefined,
  sets: readonly string[],
  setNew = false,
): Uint8Array {
  const text = new TextDecoder().decode(body);
  if (/^application\/x-www-form-urlencoded/i.test(contentType?.trim() ?? "")) {
    const form = new URLSearchParams(text);
    for (const item of sets) {
      const { path, raw } = _split(item);
      if (!form.has(path) && !setNew) {
        throw new UsageError(
          `--set ${path}: the form body has no field "${path}" (fields: ${
            [...new Set(form.keys())].join(", ") || "none"
          }); check the name, or add --set-new to create it`,
        );
      }
      form.set(path, raw);
    }
    return new TextEncoder().encode(form.toString());
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UsageError(
      "--set changes a JSON or form-encoded body, and this body is neither; use --body-file instead",
    );
  }
  for (const item of sets) {
    const { path, value } = _split(item);
    setJsonField(json, path, value, setNew);
  }
  const indent = /\n([ \t]+)\S/.exec(text)?.[1];
  return new TextEncoder().encode(JSON.stringify(json, null, indent));
}

/**
 * A `trigger` override meant for one step of a sequence: `STEP:path=value`
 * (`--set`) or `STEP:path` (`--unset`), STEP a step's number from 1 or its
 * event type (`invoice.paid:data.object.amount_paid=0`); without `STEP:` it
 * is for every step. A colon after the `=` is part of the value.
 */
export function splitStep(item: string): { step?: string; rest: string } {
  const eq = item.indexOf("=");
  const colon = item.indexOf(":");
  if (colon <= 0 || (eq >= 0 && colon > eq)) return { rest: item };
  return { step: item.slice(0, colon), rest: item.slice(colon + 1) };
}

/** Whether `step` (a `splitStep` scope) names the step at `index` (from 0) whose event is `event`. */
export function stepMatches(step: string | undefined, index: number, event: string): boolean {
  if (step === undefined) return true;
  return /^\d+$/.test(step) ? Number(step) === index + 1 : step === event;
}

/**
 * Removes `path` (`a.b[0].c`) from `root` (an array element is spliced out).
 * @throws {UsageError} when the field does not exist, naming what is there.
 */
export function unsetJsonField(root: unknown, path: string): void {
  const keys = path.replace(/\[(\d+)\]/g, ".$1").split(".").filter((k) => k !== "");
  if (keys.length === 0) throw new UsageError(`--unset needs a field path, like data.object.metadata`);
  let at = root as Record<string, unknown>;
  for (const [i, key] of keys.entries()) {
    if (typeof at !== "object" || at === null || !Object.hasOwn(at, key)) {
      const where = i === 0 ? "the body" : keys.slice(0, i).join(".");
      const fields = typeof at === "object" && at !== null ? Object.keys(at) : [];
      throw new UsageError(
        `--unset ${path}: the body has no field "${keys.slice(0, i + 1).join(".")}" (${where} has ${
          fields.length === 0
            ? "no fields"
            : fields.slice(0, 12).join(", ") + (fields.length > 12 ? ", ..." : "")
        }); check the path`,
      );
    }
    if (i === keys.length - 1) {
      if (Array.isArray(at)) at.splice(Number(key), 1);
      else delete at[key];
    } else at = at[key] as Record<string, unknown>;
  }
}

/**
 * The body without the `--unset` fields: JSON fields (re-encoded as
 * {@linkcode applySets} does), or every occurrence of a form field.
 * @throws {UsageError} naming the missing field, or a body that is neither JSON nor a form.
 */
export function applyUnsets(
  body: Uint8Array,
  contentType: string | undefined,
  paths: readonly string[],
): Uint8Array {
  if (paths.length === 0) return body;
  const text = new TextDecoder().decode(body);
  if (/^application\/x-www-form-urlencoded/i.test(contentType?.trim() ?? "")) {
    const form = new URLSearchParams(text);
    for (const path of paths) {
      if (!form.has(path)) {
        throw new UsageError(
          `--unset ${path}: the form body has no field "${path}" (fields: ${
            [...new Set(form.keys())].join(", ") || "none"
          }); check the name`,
        );
      }
      form.delete(path);
    }
    return new TextEncoder().encode(form.toString());
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UsageError("--unset removes a field of a JSON or form-encoded body, and this body is neither");
  }
  for (const path of paths) unsetJsonField(json, path);
  const indent = /\n([ \t]+)\S/.exec(text)?.[1];
  return new TextEncoder().encode(JSON.stringify(json, null, indent));
}
