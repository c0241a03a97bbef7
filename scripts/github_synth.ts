/**
 * Makes payloads conform to GitHub's webhook schema for the catalog
 * generator: a real example keeps its values and gains the fields GitHub made
 * required since it was recorded; an event.action without an example is built
 * from its schema, its objects taken from real examples where one of them
 * fits (a repository, a sender, an issue) and the rest filled with realistic,
 * deterministic values named after their field. Then each payload is made to
 * agree with its own action (closed is closed, synchronize's `after` is the
 * head's sha).
 * @module
 */
import { differences, jsonType, resolveRef, type Schema } from "../src/schema/validate.ts";

type Obj = Record<string, unknown>;

const DATE = "2025-06-10T14:32:07Z";
const LATER = "2025-06-10T15:04:51Z";
const OWNER = "octo-org";
const REPO = "hello-world";

function _hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

function _hex(seed: string, length: number): string {
  let out = "";
  for (let i = 0; out.length < length; i++) out += _hash(`${seed}#${i}`).toString(16).padStart(8, "0");
  return out.slice(0, length);
}

/** Top-level fields GitHub sends only to a GitHub App or an enterprise's hooks (hooktap sends a repository's). */
const APP_ONLY = new Set(["installation", "enterprise"]);

/** Objects that mean the same thing in every event, so a recorded one may stand in (never an `alert`). */
const GENERIC =
  /^(repository|sender|organization|installation|enterprise|user|owner|creator|assignee|issue|pull_request|comment|label|milestone|workflow|workflow_run|deployment|check_suite|head_commit|commit|team|member|app|release|discussion|project)$/;

function _isObject(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function _types(schema: Obj): string[] {
  const t = schema.type;
  return t === undefined ? [] : Array.isArray(t) ? t as string[] : [t as string];
}

/** Conforms and builds payloads against one OpenAPI description. */
export class Synth {
  readonly #root: Obj;
  readonly #byRef = new Map<string, unknown>();
  readonly #byName = new Map<string, unknown[]>();

  constructor(root: Obj) {
    this.#root = root;
  }

  /** Whether `value` conforms to `schema`. */
  valid(value: unknown, schema: Schema): boolean {
    return differences(value, schema, this.#root, 1).length === 0;
  }

  /** Remembers the parts of a conforming payload, to reuse them where a schema wants the same thing. */
  learn(value: unknown, schema: Schema, name = ""): void {
    if (typeof schema !== "object") return;
    if (typeof schema.$ref === "string") {
      if (!this.#byRef.has(schema.$ref) && this.valid(value, schema)) this.#byRef.set(schema.$ref, value);
      this.learn(value, resolveRef(schema.$ref, this.#root), name);
      return;
    }
    if (_isObject(value)) {
      if (name !== "") {
        const list = this.#byName.get(name) ?? [];
        if (list.length < 8) list.push(value);
        this.#byName.set(name, list);
      }
      const props = (schema.properties ?? {}) as Record<string, Schema>;
      for (const [key, sub] of Object.entries(props)) {
        if (key in value) this.learn(value[key], sub, key);
      }
      for (const part of (schema.allOf ?? []) as Schema[]) this.learn(value, part, name);
    }
  }

  /** `value` changed as little as possible to conform to `schema`. */
  conform(value: unknown, schema: Schema, name: string, path: string): unknown {
    if (typeof schema !== "object") return value;
    if (this.valid(value, schema)) return value;
    if (typeof schema.$ref === "string") {
      value = this.conform(value, resolveRef(schema.$ref, this.#root), name, path);
    }
    for (const part of (schema.allOf ?? []) as Schema[]) value = this.conform(value, part, name, path);
    for (const key of ["oneOf", "anyOf"]) {
      const variants = schema[key] as Schema[] | undefined;
      if (variants === undefined || variants.some((v) => this.valid(value, v))) continue;
      // Keep the value's kind (an object stays an object rather than becoming null), then change the least.
      const sameKind = variants.filter((v) => this.#admits(v, value));
      const scored = (sameKind.length > 0 ? sameKind : variants).map((v) => ({
        v,
        n: differences(value, v, this.#root).length,
      }));
      const best = scored.reduce((a, b) => (b.n < a.n ? b : a)).v;
      value = this.conform(value, best, name, path);
    }
    const types = _types(schema);
    if (
      types.length > 0 &&
      !types.some((t) => t === jsonType(value) || (t === "number" && jsonType(value) === "integer"))
    ) {
      return this.make(schema, name, path);
    }
    if (Array.isArray(schema.enum) && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) {
      const norm = (x: unknown) => String(x).toLowerCase().replace(/[^a-z0-9]/g, "");
      return schema.enum.find((e) => norm(e) === norm(value)) ?? this.make(schema, name, path);
    }
    if (typeof value === "string" && typeof schema.format === "string" && !this.valid(value, schema)) {
      return types.includes("null") ? null : this.make(schema, name, path);
    }
    if (typeof value === "number") {
      if (typeof schema.minimum === "number" && value < schema.minimum) return schema.minimum;
      if (typeof schema.maximum === "number" && value > schema.maximum) return schema.maximum;
    }
    if (Array.isArray(value) && schema.items !== undefined) {
      return value.map((item, i) => this.conform(item, schema.items as Schema, name, `${path}[${i}]`));
    }
    if (_isObject(value)) {
      const props = (schema.properties ?? {}) as Record<string, Schema>;
      const out: Obj = {};
      for (const [key, item] of Object.entries(value)) {
        const sub = props[key];
        if (sub !== undefined) out[key] = this.conform(item, sub, key, `${path}.${key}`);
        else if (schema.additionalProperties !== false) out[key] = item;
      }
      for (const key of (schema.required ?? []) as string[]) {
        if (!(key in out)) out[key] = this.make(props[key] ?? true, key, `${path}.${key}`);
      }
      return out;
    }
    return value;
  }

  /** A realistic value for `schema`, named `name`, made the same on every run. */
  make(schema: Schema, name: string, path: string): unknown {
    if (typeof schema !== "object") return this.#scalar("string", {}, name, path);
    if (typeof schema.$ref === "string") {
      const known = this.#byRef.get(schema.$ref);
      if (known !== undefined) return structuredClone(known);
      return this.make(resolveRef(schema.$ref, this.#root), name, path);
    }
    for (const donor of GENERIC.test(name) ? this.#byName.get(name) ?? [] : []) {
      if (this.valid(donor, schema)) return structuredClone(donor);
    }
    if ("const" in schema) return schema.const;
    if (Array.isArray(schema.enum)) {
      if (schema.enum.includes(null) && this.#nullable(name)) return null;
      return schema.enum.find((e) => e !== null) ?? null;
    }
    if (Array.isArray(schema.allOf)) {
      let value: unknown = undefined;
      for (const part of schema.allOf as Schema[]) {
        value = value === undefined ? this.make(part, name, path) : this.conform(value, part, name, path);
      }
      return this.conform(value, { ...schema, allOf: undefined }, name, path);
    }
    for (const key of ["oneOf", "anyOf"]) {
      const variants = schema[key] as Schema[] | undefined;
      if (variants === undefined) continue;
      const pick = variants.find((v) => typeof v === "object" && !_types(v).every((t) => t === "null")) ??
        variants[0]!;
      return this.conform(this.make(pick, name, path), { ...schema, [key]: undefined }, name, path);
    }
    const types = _types(schema);
    if (types.includes("null") && (types.length === 1 || this.#nullable(name))) return null;
    const type = types.find((t) => t !== "null") ??
      (schema.properties !== undefined ? "object" : schema.items !== undefined ? "array" : "string");
    if (type === "object") {
      const props = (schema.properties ?? {}) as Record<string, Schema>;
      const required = (schema.required ?? []) as string[];
      const out: Obj = {};
      // GitHub sends every field of an object, null where it has nothing: the optional ones too, near the top.
      const deep = path.split(".").length > 4;
      for (const [key, sub] of Object.entries(props)) {
        if (required.includes(key)) out[key] = this.make(sub, key, `${path}.${key}`);
        else if (!deep && !(path === "$" && APP_ONLY.has(key))) {
          const value = this.make(sub, key, `${path}.${key}`);
          if (this.valid(value, sub)) out[key] = value;
        }
      }
      for (const key of required) if (!(key in out)) out[key] = this.make(true, key, `${path}.${key}`);
      return out;
    }
    if (type === "array") return [];
    return this.#scalar(type, schema, name, path);
  }

  /** Whether `schema` (through its `$ref`s) may hold a value of `value`'s JSON type. */
  #admits(schema: Schema, value: unknown): boolean {
    if (typeof schema !== "object") return schema;
    if (typeof schema.$ref === "string") return this.#admits(resolveRef(schema.$ref, this.#root), value);
    const types = _types(schema);
    const have = jsonType(value);
    return types.length === 0 || types.some((t) => t === have || (t === "number" && have === "integer"));
  }

  /** Required fields GitHub sends as null when there is nothing (the rest get a value). */
  #nullable(name: string): boolean {
    return !/^(user|sender|owner|repository|organization|creator|app|account|author|committer)$/.test(name);
  }

  #scalar(type: string, schema: Obj, name: string, path: string): unknown {
    const seed = path;
    if (type === "boolean") return /^(active|verified|public|enabled)$/.test(name);
    if (type === "integer" || type === "number") {
      const n = _hash(seed);
      if (/(^|_)id$/.test(name)) return 100_000_000 + (n % 900_000_000);
      if (name === "number") return 1 + (n % 400);
      if (typeof schema.minimum === "number") return schema.minimum;
      return n % 50;
    }
    const format = schema.format;
    if (format === "date-time" || /_at$/.test(name)) return DATE;
    if (format === "date") return DATE.slice(0, 10);
    if (format === "email" || name === "email") return "octocat@github.com";
    if (format === "uri" || format === "uri-template" || /(^|_)url$/.test(name)) {
      if (name === "html_url") return `https://github.com/${OWNER}/${REPO}`;
      if (name === "avatar_url") return "https://avatars.githubusercontent.com/u/583231?v=4";
      const tail = name.replace(/_?url$/, "").replace(/_/g, "-");
      return `https://api.github.com/repos/${OWNER}/${REPO}${tail === "" ? "" : `/${tail}`}`;
    }
    if (/(^|_)sha$|^(after|before|commit_id|head_commit_id|commit_oid)$/.test(name)) return _hex(seed, 40);
    if (/node_id$/.test(name)) return btoa(`04:${name}${_hash(seed)}`).replace(/=+$/, "");
    if (name === "login") return "octocat";
    if (name === "secret_type") return "github_personal_access_token";
    if (name === "secret_type_display_name") return "GitHub Personal Access Token";
    if (name === "href") return `https://api.github.com/repos/${OWNER}/${REPO}`;
    if (name === "full_name") return `${OWNER}/${REPO}`;
    if (name === "ref") return "refs/heads/main";
    if (/branch$/.test(name)) return "main";
    if (name === "color") return "d73a4a";
    if (name === "slug") return REPO;
    if (name === "name") return REPO;
    if (name === "title") return "Update the README";
    if (/^(body|description|message|summary)$/.test(name)) return "Fixes the spelling of the README.";
    if (name === "state") return "open";
    if (name === "path") return "README.md";
    return name === "" ? "octocat" : name.replace(/_/g, "-");
  }
}

/** The object an event is about, by event: `issues` → `issue`. */
const SUBJECTS: Record<string, string> = {
  issues: "issue",
  pull_request: "pull_request",
  milestone: "milestone",
  project: "project",
  projects_v2: "projects_v2",
  discussion: "discussion",
  dependabot_alert: "alert",
  code_scanning_alert: "alert",
  secret_scanning_alert: "alert",
  repository_vulnerability_alert: "alert",
};

/**
 * Makes `body` agree with its action where the schema leaves it free: a
 * closed subject is closed (with `closed_at`), an opened or reopened one is
 * open, a synchronize's `after` is the pull request's head.
 */
export function settle(event: string, action: string, body: Obj, merged = false): Obj {
  const subject = body[SUBJECTS[event] ?? ""];
  if (_isObject(subject)) {
    if (action === "closed") {
      if (typeof subject.state === "string") subject.state = "closed";
      if ("closed_at" in subject) subject.closed_at = LATER;
      if ("updated_at" in subject) subject.updated_at = LATER;
      if (typeof subject.closed === "boolean") subject.closed = true;
      if (event === "pull_request") {
        subject.merged = merged;
        subject.merged_at = merged ? LATER : null;
        if ("merged_by" in subject) subject.merged_by = merged ? (body.sender ?? subject.user) : null;
        if (merged && "merge_commit_sha" in subject) subject.merge_commit_sha = _hex("merge", 40);
      }
    }
    if (action === "opened" || action === "reopened" || action === "created") {
      if (typeof subject.state === "string" && subject.state === "closed") subject.state = "open";
      if ("closed_at" in subject) subject.closed_at = null;
      if (typeof subject.closed === "boolean") subject.closed = false;
    }
  }
  if (event === "pull_request" && action === "synchronize" && _isObject(subject) && _isObject(subject.head)) {
    if (typeof body.after === "string") subject.head.sha = body.after;
    if (body.before === body.after) body.before = _hex("before", 40);
  }
  for (const name of ["sub_issue", "parent_issue", "blocked_issue", "blocking_issue"]) {
    const issue = body[name];
    if (_isObject(issue) && typeof body[`${name}_id`] === "number") body[`${name}_id`] = issue.id;
  }
  const run = body[RUNS[event] ?? ""];
  if (_isObject(run) && "status" in run) {
    if (action === "completed") {
      run.status = "completed";
      if ("conclusion" in run && run.conclusion === null) run.conclusion = "success";
    } else if (["in_progress", "queued", "requested", "waiting", "pending"].includes(action)) {
      run.status = action === "requested" ? "queued" : action;
      if ("conclusion" in run) run.conclusion = null;
      if ("completed_at" in run) run.completed_at = null;
    }
  }
  return body;
}

/** The run an event reports the status of, by event. */
const RUNS: Record<string, string> = {
  workflow_run: "workflow_run",
  workflow_job: "workflow_job",
  check_run: "check_run",
  check_suite: "check_suite",
};
