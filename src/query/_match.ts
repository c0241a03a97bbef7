/**
 * The pieces of {@linkcode compileFilter} that read inside an event: a
 * `--where` over the body's JSON, a `--header`, the body as text. Each
 * returns its exact test and, when there is one, a pattern every matching
 * line's text must hold. Pure.
 * @module
 */
import { UsageError } from "../errors.ts";
import { type CapturedEvent, decodeBody } from "../event/record.ts";

/** `text` as it stands inside a JSON string: escaping is per character, so a part of a value escapes to a part of the escaped value. */
export function esc1(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

/** `text` as a literal in a regular expression. */
export function reEscape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

const lossy = new TextDecoder();

/** The body as text: as stored, or the bytes a base64 body stands for, decoded leniently. */
export function bodyText(event: Pick<CapturedEvent, "body" | "bodyEncoding">): string {
  return event.bodyEncoding === "base64" ? lossy.decode(decodeBody(event)) : event.body;
}

/** One compiled `--where` or `--header`. */
export interface FieldTest {
  /** What a matching line's text must hold, if anything can be said. */
  term?: RegExp;
  /** ... unless it holds this (then it may match without `term`). */
  unless?: string;
  test(event: CapturedEvent): boolean;
}

const parsed = new WeakMap<CapturedEvent, unknown>();
const NOT_JSON = Symbol("not json");

function _json(event: CapturedEvent): unknown {
  if (parsed.has(event)) return parsed.get(event);
  let value: unknown = NOT_JSON;
  if (event.bodyEncoding === "utf8") {
    try {
      value = JSON.parse(event.body);
    } catch { /* not JSON: no field matches */ }
  }
  parsed.set(event, value);
  return value;
}

function _at(value: unknown, path: readonly string[]): { found: boolean; value?: unknown } {
  let at = value;
  for (const key of path) {
    if (typeof at !== "object" || at === null || !Object.hasOwn(at, key)) return { found: false };
    at = (at as Record<string, unknown>)[key];
  }
  return { found: true, value: at };
}

function _equals(value: unknown, text: string): boolean {
  if (typeof value === "string") return value === text;
  if (typeof value === "number") return text.trim() !== "" && Number(text) === value;
  if (typeof value === "boolean" || value === null) return String(value) === text;
  return JSON.stringify(value) === text;
}

/**
 * `a.b=v` (the field equals v: a string exactly, a number by value, `true`,
 * `false`, `null`), `a.b!=v` (missing or different), `a.b` (present).
 * Array items by index: `items.0.id=7`.
 * @throws {UsageError} when there is no field name.
 */
export function compileWhere(text: string): FieldTest {
  const m = /^([^=!]+?)\s*(!=|=)(.*)$/s.exec(text) ?? /^([^=!]+)()()$/s.exec(text);
  const path = m?.[1]?.trim().split(".") ?? [];
  if (m === null || path.some((k) => k === "")) {
    throw new UsageError(
      `--where must look like field=value, field!=value or field (nested: data.object.id=cus_42), got "${text}".`,
    );
  }
  const op = m[2]!;
  const want = m[3]!;
  if (op === "") return { test: (e) => _at(_json(e), path).found };
  if (op === "!=") {
    return {
      test: (e) => {
        const at = _at(_json(e), path);
        return !at.found || !_equals(at.value, want);
      },
    };
  }
  const test = (e: CapturedEvent) => {
    const at = _at(_json(e), path);
    return at.found && _equals(at.value, want);
  };
  // A number may be written many ways (1e2, 100.0); a string is there as is, unless
  // the body holds a backslash (an escape), which the line shows as two.
  if (/^\s*-?[\d.]/.test(want)) return { test };
  return { term: new RegExp(`${reEscape(esc1(want))}|\\\\\\\\`), test };
}

/**
 * `Name=value` or `Name: value` (the name in any case, any of its repeats,
 * the value exactly) or `Name` (present).
 * @throws {UsageError} when the name is empty or not a header name.
 */
export function compileHeader(text: string): FieldTest {
  const at = text.search(/[=:]/);
  const name = (at === -1 ? text : text.slice(0, at)).trim();
  if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name)) {
    throw new UsageError(`--header must look like Name=value or Name (X-GitHub-Event=push), got "${text}".`);
  }
  const lower = name.toLowerCase();
  if (at === -1) {
    return {
      term: new RegExp(reEscape(esc1(name)), "i"),
      test: (e) => e.headers.some(([k]) => k.toLowerCase() === lower),
    };
  }
  const value = text[at] === ":" ? text.slice(at + 1).trim() : text.slice(at + 1);
  return {
    term: new RegExp(reEscape(esc1(value))),
    test: (e) => e.headers.some(([k, v]) => v === value && k.toLowerCase() === lower),
  };
}
