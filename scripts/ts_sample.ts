/**
 * Builds a sample value of a TypeScript type declared in a provider's
 * package (its `.d.ts`), with the TypeScript compiler: every property
 * (optional ones too: providers send them), the first literal of a union,
 * one element of an array, and for a bare `string` or `number` a value
 * chosen by the property's name (`*_id`, `email`, `*_time`, `url`, ...).
 * Times are written as placeholders (src/providers/_stamp.ts the catalog replaces with
 * the trigger's time). Used by scripts/provider_catalogs.ts.
 * @module
 */
import ts from "typescript";

import { NOW, NOW_MS, NOW_S } from "../src/providers/_stamp.ts";

/** A loaded declaration file: its checker and its type aliases and interfaces by name. */
export interface Declarations {
  checker: ts.TypeChecker;
  types: Map<string, ts.Type>;
  /** The text of each alias's declared type (`Event<"meeting.started"> & {...}`). */
  texts: Map<string, string>;
}

/** Loads the type aliases and interfaces declared at the top level of `files`. */
export function loadDeclarations(files: readonly string[]): Declarations {
  const program = ts.createProgram([...files], {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    module: ts.ModuleKind.ESNext,
  });
  const checker = program.getTypeChecker();
  const types = new Map<string, ts.Type>();
  const texts = new Map<string, string>();
  for (const file of files) {
    const source = program.getSourceFile(file);
    if (source === undefined) throw new Error(`cannot load ${file}`);
    const visit = (node: ts.Node) => {
      if (ts.isTypeAliasDeclaration(node)) {
        types.set(node.name.text, checker.getTypeAtLocation(node.name));
        texts.set(node.name.text, node.type.getText(source));
      } else if (ts.isInterfaceDeclaration(node)) {
        types.set(node.name.text, checker.getTypeAtLocation(node.name));
        texts.set(node.name.text, "");
      } else if (ts.isModuleDeclaration(node) && node.body !== undefined) {
        ts.forEachChild(node.body, visit);
      }
    };
    ts.forEachChild(source, visit);
  }
  return { checker, types, texts };
}

const WORDS: [RegExp, string | (() => string)][] = [
  [/email/i, "jenny.rosen@example.com"],
  [/(^|_)(url|uri|link|href)$|_url$|Url$/i, "https://example.com/hooktap"],
  [/(time|_at|At|date|Date|timestamp)$/i, NOW],
  [/timezone/i, "America/New_York"],
  [/(^|_)(phone|number)$/i, "+14155550100"],
  [/country/i, "US"],
  [/currency/i, "USD"],
  [/(language|locale)$/i, "en-US"],
  [/(first_name|firstName)$/i, "Jenny"],
  [/(last_name|lastName)$/i, "Rosen"],
  [/(user_name|display_name|userName|displayName|login|name)$/i, "Jenny Rosen"],
  [/(topic|title|subject)$/i, "Weekly sync"],
  [/(text|message|body|content|description|comment)$/i, "Reproduced with hooktap trigger."],
  [/(uuid|Uuid)$/i, "4444AAAiAAAAAiAiAiiAii=="],
  [/(id|Id|ID|key|token)$/, ""],
  [/ip(_address)?$/i, "203.0.113.7"],
  [/(color|colour)$/i, "#5e6ad2"],
];

function _string(name: string): string {
  for (const [re, v] of WORDS) {
    if (re.test(name)) {
      const s = typeof v === "function" ? v() : v;
      if (s !== "") return s;
      return `${name.replace(/[^A-Za-z]/g, "").slice(0, 4).toLowerCase() || "id"}_${_hash(name)}`;
    }
  }
  return name === "" ? "string" : name.replace(/_/g, " ");
}

function _hash(s: string): string {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return (h >>> 0).toString(36).padStart(7, "0");
}

function _number(name: string): number {
  if (/(_ts|Ts|timestamp|_ms)$/i.test(name)) return NOW_MS;
  if (/(time|_at)$|^(created|updated|date_[a-z]+)$/i.test(name)) return NOW_S;
  if (/(^|_)id$|Id$/.test(name)) return 85746065432;
  if (/(duration|count|size|total|amount|bits)$/i.test(name)) return 30;
  return 1;
}

/** How to sample. */
export interface SampleOptions {
  /** Include optional properties. @default true */
  optional?: boolean;
  /** Values of bare `string`/`number` properties by name (a provider's id formats: `user` → `U061F7AUR`). */
  hints?: Readonly<Record<string, string | number>>;
  /** Optional properties included even when `optional` is false (`text` of a message). */
  keep?: readonly string[];
}

/** A sample value of `type`; `name` is the property it is for (a hint for strings and numbers). */
export function sample(
  decls: Declarations,
  type: ts.Type,
  name = "",
  depth = 0,
  options: SampleOptions = {},
): unknown {
  const { checker } = decls;
  const hint = options.hints?.[name];
  if (hint !== undefined && typeof hint === "string" && type.flags & ts.TypeFlags.String) return hint;
  if (hint !== undefined && typeof hint === "number" && type.flags & ts.TypeFlags.Number) return hint;
  const f = type.flags;
  if (f & ts.TypeFlags.StringLiteral) return (type as ts.StringLiteralType).value;
  if (f & ts.TypeFlags.NumberLiteral) return (type as ts.NumberLiteralType).value;
  if (f & ts.TypeFlags.BooleanLiteral) return checker.typeToString(type) === "true";
  if (f & ts.TypeFlags.Boolean) return false;
  if (f & (ts.TypeFlags.String | ts.TypeFlags.TemplateLiteral)) return _string(name);
  if (f & ts.TypeFlags.Number) return _number(name);
  if (f & (ts.TypeFlags.Undefined | ts.TypeFlags.Void | ts.TypeFlags.Never)) return undefined;
  if (f & ts.TypeFlags.Null) return null;
  if (f & ts.TypeFlags.NonPrimitive) return {};
  if (f & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return null;
  if (f & ts.TypeFlags.EnumLike && type.isUnion()) return sample(decls, type.types[0]!, name, depth, options);
  if (type.isUnion()) {
    const members = type.types.filter((t) => !(t.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined)));
    if (members.length === 0) return null;
    // `true | false` is boolean; otherwise the first member the provider declares.
    if (members.every((t) => t.flags & ts.TypeFlags.BooleanLiteral)) return false;
    return sample(decls, members[0]!, name, depth, options);
  }
  if (depth > 12) return null;
  // A Date a package declares for a JSON field is a time string on the wire.
  if (type.getSymbol()?.name === "Date") return NOW;
  if (checker.isArrayType(type)) {
    const [element] = checker.getTypeArguments(type as ts.TypeReference);
    const one = element === undefined
      ? undefined
      : sample(decls, element, _singular(name), depth + 1, options);
    return one === undefined ? [] : [one];
  }
  if (checker.isTupleType(type)) {
    return checker.getTypeArguments(type as ts.TypeReference).map((t) =>
      sample(decls, t, name, depth + 1, options)
    );
  }
  if (f & ts.TypeFlags.Object || type.isIntersection()) {
    const out: Record<string, unknown> = {};
    for (const prop of checker.getPropertiesOfType(type)) {
      const declaration = prop.valueDeclaration ?? prop.declarations?.[0];
      const propType = declaration === undefined
        ? checker.getTypeOfSymbol(prop)
        : checker.getTypeOfSymbolAtLocation(prop, declaration);
      if (propType.getCallSignatures().length > 0) continue;
      if (
        options.optional === false && prop.flags & ts.SymbolFlags.Optional &&
        !options.keep?.includes(prop.name)
      ) continue;
      const nonNull = _nonOptional(checker, propType);
      // `x: null` is sent as null; `x?: undefined` is left out.
      const value = nonNull.flags & ts.TypeFlags.Never
        ? (propType.flags & ts.TypeFlags.Null || (propType.isUnion() &&
            propType.types.some((t) => t.flags & ts.TypeFlags.Null))
          ? null
          : undefined)
        : sample(decls, nonNull, prop.name, depth + 1, options);
      if (value !== undefined) out[prop.name] = value;
    }
    return out;
  }
  return null;
}

function _singular(name: string): string {
  return name.replace(/ies$/, "y").replace(/s$/, "");
}

function _nonOptional(checker: ts.TypeChecker, type: ts.Type): ts.Type {
  return checker.getNonNullableType(type);
}
