/**
 * A small JSON Schema checker for the part of the language providers'
 * webhook schemas use (OpenAPI 3.1: `type` lists, `properties`, `required`,
 * `additionalProperties`, `items`, `enum`, `const`, `oneOf`/`anyOf`/`allOf`,
 * local `$ref`s, `minimum`/`maximum`, `minLength`/`maxLength`, `pattern`,
 * `minItems`/`maxItems`, the common `format`s; and OpenAPI 3.0's `nullable`).
 * It interprets the schema (no code is generated from it) and reports where a
 * value differs, as paths a person can read. Pure.
 * @module
 */

/** A JSON Schema (or a part of one). */
export type Schema = { [key: string]: unknown } | boolean;

/** One place where a value differs from its schema. */
export interface Difference {
  /** Where, as a JSON path: `$.pull_request.head.sha`. */
  path: string;
  /** What differs: `is missing (required)`, `is a string, the schema wants integer`. */
  message: string;
}

/** How `$ref`s resolve: a `#/a/b` pointer into `root`. */
export interface SchemaRoot {
  root: Record<string, unknown>;
}

const FORMATS: Record<string, RegExp> = {
  "date-time": /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:?\d{2})$/,
  "date": /^\d{4}-\d{2}-\d{2}$/,
  "uri": /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]*$/,
  "email": /^[^\s@]+@[^\s@]+$/,
};

/** The JSON type of a value, as a schema names it. */
export function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/** The schema a local `$ref` (`#/components/schemas/x`) points at. */
export function resolveRef(ref: string, root: Record<string, unknown>): Schema {
  if (!ref.startsWith("#/")) throw new Error(`unsupported $ref ${ref}`);
  let node: unknown = root;
  for (const part of ref.slice(2).split("/")) {
    const key = part.replace(/~1/g, "/").replace(/~0/g, "~");
    node = (node as Record<string, unknown> | undefined)?.[key];
  }
  if (node === undefined) throw new Error(`unresolved $ref ${ref}`);
  return node as Schema;
}

function _typeOk(want: unknown, value: unknown): boolean {
  const have = jsonType(value);
  const list = Array.isArray(want) ? want : [want];
  return list.some((t) => t === have || (t === "number" && have === "integer"));
}

function _key(path: string, key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

function _short(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

/**
 * Every place `value` differs from `schema` (up to `max`), `[]` when it conforms.
 * Of a `oneOf`/`anyOf`, the differences from the variant it comes closest to.
 */
export function differences(
  value: unknown,
  schema: Schema,
  root: Record<string, unknown>,
  max = Infinity,
): Difference[] {
  const out: Difference[] = [];
  _check(value, schema, root, "$", out, Infinity);
  // allOf parts often repeat a property's schema: one difference per place, the first found.
  const seen = new Set<string>();
  return out.filter((d) => !seen.has(d.path) && seen.add(d.path) !== undefined).slice(0, max);
}

function _check(
  value: unknown,
  schema: Schema,
  root: Record<string, unknown>,
  path: string,
  out: Difference[],
  max: number,
): void {
  if (out.length >= max) return;
  if (schema === true) return;
  if (schema === false) {
    out.push({ path, message: "is not allowed here" });
    return;
  }
  // OpenAPI 3.0 (Stripe's description) marks nullable fields so rather than with a type list.
  if (value === null && schema.nullable === true) return;
  if (typeof schema.$ref === "string") _check(value, resolveRef(schema.$ref, root), root, path, out, max);
  if (Array.isArray(schema.allOf)) {
    for (const part of schema.allOf as Schema[]) _check(value, part, root, path, out, max);
  }
  for (const key of ["oneOf", "anyOf"] as const) {
    const variants = schema[key];
    if (!Array.isArray(variants)) continue;
    const results = (variants as Schema[]).map((v) => differences(value, v, root));
    const fits = results.filter((r) => r.length === 0).length;
    if (key === "oneOf" ? fits === 1 : fits >= 1) continue;
    if (fits > 1) {
      out.push({ path, message: `matches ${fits} of the oneOf variants, the schema wants exactly one` });
      continue;
    }
    const closest = results.reduce((a, b) => (b.length < a.length ? b : a));
    out.push(...closest.slice(0, Math.max(0, max - out.length)));
  }
  if (schema.type !== undefined && !_typeOk(schema.type, value)) {
    const want = Array.isArray(schema.type) ? schema.type.join(" or ") : String(schema.type);
    out.push({ path, message: `is ${jsonType(value)}, the schema wants ${want}` });
    return;
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => _equal(e, value))) {
    const options = schema.enum.slice(0, 6).map(_short).join(", ");
    out.push({
      path,
      message: `is ${_short(value)}, the schema allows ${options}${schema.enum.length > 6 ? ", ..." : ""}`,
    });
  }
  if ("const" in schema && !_equal(schema.const, value)) {
    out.push({ path, message: `is ${_short(value)}, the schema wants ${_short(schema.const)}` });
  }
  if (typeof value === "number") {
    if (typeof schema.minimum === "number" && value < schema.minimum) {
      out.push({ path, message: `is ${value}, below the minimum ${schema.minimum}` });
    }
    if (typeof schema.maximum === "number" && value > schema.maximum) {
      out.push({ path, message: `is ${value}, above the maximum ${schema.maximum}` });
    }
  }
  if (typeof value === "string") {
    if (typeof schema.maxLength === "number" && [...value].length > schema.maxLength) {
      out.push({ path, message: `is longer than ${schema.maxLength} characters` });
    }
    if (typeof schema.minLength === "number" && [...value].length < schema.minLength) {
      out.push({ path, message: `is shorter than ${schema.minLength} characters` });
    }
    if (typeof schema.pattern === "string" && !new RegExp(schema.pattern, "u").test(value)) {
      out.push({ path, message: `${_short(value)} does not match ${schema.pattern}` });
    }
    const format = typeof schema.format === "string" ? FORMATS[schema.format] : undefined;
    if (format !== undefined && !format.test(value)) {
      out.push({ path, message: `${_short(value)} is not a ${schema.format}` });
    }
  }
  if (Array.isArray(value) && typeof schema.minItems === "number" && value.length < schema.minItems) {
    out.push({ path, message: `has ${value.length} items, the schema wants at least ${schema.minItems}` });
  }
  if (Array.isArray(value) && typeof schema.maxItems === "number" && value.length > schema.maxItems) {
    out.push({ path, message: `has ${value.length} items, the schema wants at most ${schema.maxItems}` });
  }
  if (Array.isArray(value) && schema.items !== undefined) {
    value.forEach((item, i) => _check(item, schema.items as Schema, root, `${path}[${i}]`, out, max));
  }
  if (jsonType(value) === "object") {
    const obj = value as Record<string, unknown>;
    const props = (schema.properties ?? {}) as Record<string, Schema>;
    if (Array.isArray(schema.required)) {
      for (const key of schema.required as string[]) {
        if (!(key in obj)) out.push({ path: _key(path, key), message: "is missing (required)" });
      }
    }
    for (const [key, item] of Object.entries(obj)) {
      const sub = props[key];
      if (sub !== undefined) _check(item, sub, root, _key(path, key), out, max);
      else if (schema.additionalProperties === false) {
        out.push({ path: _key(path, key), message: "is not in the schema (no other fields allowed)" });
      } else if (typeof schema.additionalProperties === "object") {
        _check(item, schema.additionalProperties as Schema, root, _key(path, key), out, max);
      }
    }
  }
}

function _equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}
