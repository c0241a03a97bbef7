/**
 * `--set path=value` and `--set-new` on a draft's body, JSON or form: the
 * value is read as JSON when it parses (`5000`, `true`, `{"a":1}`), else as
 * text. A path that is not in the body is an error unless `--set-new`
 * (then it is created). Form bodies: the path is the parameter's name.
 * Same meaning as replay's `--set` (issue 22 unifies them). Pure.
 * @module
 */
import { UsageError } from "../errors.ts";
import type { DraftBody } from "./types.ts";

/** One `path=value`, split and its value read. */
export interface SetItem {
  path: string;
  value: unknown;
  /** The value as typed (form bodies take it as is). */
  text: string;
}

/** Parses `path=value`. */
export function parseSet(item: string, flag = "--set"): SetItem {
  const eq = item.indexOf("=");
  if (eq <= 0) {
    throw new UsageError(`${flag} expects path=value, like data.object.amount=5000; got "${item}"`);
  }
  const text = item.slice(eq + 1);
  let value: unknown = text;
  try {
    value = JSON.parse(text);
  } catch { /* a bare string */ }
  return { path: item.slice(0, eq), value, text };
}

function _keys(path: string): string[] {
  return path.replace(/\[(\d+)\]/g, ".$1").split(".").filter((k) => k !== "");
}

/**
 * Sets `path` in `root`.
 * @throws {UsageError} when a part of the path is missing and `create` is false, or is not an object.
 */
export function setPath(root: unknown, path: string, value: unknown, create: boolean): void {
  const keys = _keys(path);
  if (keys.length === 0) {
    throw new UsageError(`--set needs a field path before "=", like data.object.amount=5000`);
  }
  let at = root as Record<string, unknown>;
  for (const [i, key] of keys.entries()) {
    const here = keys.slice(0, i).join(".") || "the body";
    if (typeof at !== "object" || at === null) {
      throw new UsageError(`--set ${path}: ${here} is not an object or array, so it has no "${key}"`);
    }
    const last = i === keys.length - 1;
    if (!Object.hasOwn(at, key)) {
      if (!create) {
        throw new UsageError(
          `--set ${path}: ${here} has no field "${key}" (fields: ${
            Object.keys(at).slice(0, 12).join(", ")
          }); use --set-new ${path}=... to add it`,
        );
      }
      if (!last) at[key] = {};
    }
    if (last) at[key] = value;
    else at = at[key] as Record<string, unknown>;
  }
}

/** The body with `sets` (must exist) and `news` (may be created) applied. */
export function applySets(body: DraftBody, sets: readonly SetItem[], news: readonly SetItem[]): DraftBody {
  if (sets.length === 0 && news.length === 0) return body;
  if (body.kind === "raw") {
    throw new UsageError("--set changes a JSON or form body; with --body-file, edit the file instead");
  }
  if (body.kind === "form") {
    const value = body.value.map(([k, v]) => [k, v] as [string, string]);
    for (
      const [item, create] of [
        ...sets.map((s) => [s, false] as const),
        ...news.map((s) => [s, true] as const),
      ]
    ) {
      const found = value.findIndex(([k]) => k === item.path);
      if (found >= 0) value[found] = [item.path, item.text];
      else if (create) value.push([item.path, item.text]);
      else {
        throw new UsageError(
          `--set ${item.path}: the form has no parameter "${item.path}" (parameters: ${
            value.map(([k]) => k).join(", ")
          }); use --set-new to add it`,
        );
      }
    }
    return { kind: "form", value };
  }
  const value = structuredClone(body.value);
  for (const s of sets) setPath(value, s.path, s.value, false);
  for (const s of news) setPath(value, s.path, s.value, true);
  return { ...body, value };
}

/** The body's bytes and its content type's family. */
export function encodeBody(body: DraftBody): Uint8Array {
  if (body.kind === "raw") return body.bytes;
  if (body.kind === "form") return new TextEncoder().encode(new URLSearchParams(body.value).toString());
  return new TextEncoder().encode(JSON.stringify(body.value, null, body.indent || undefined));
}
