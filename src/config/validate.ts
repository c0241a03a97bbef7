/**
 * Checks the shape of a config's default export and resolves it. Pure: no
 * I/O. Every problem is collected, each with its field path and the fix.
 * @module
 */
import { ConfigError } from "../errors.ts";
import { type Config, DEFAULT_MAX_BODY_SIZE, type Endpoint, type ResolvedConfig } from "./types.ts";

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function show(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (value === undefined) return "missing";
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** Normalises a configured path the way request paths are (dot segments, percent-encoding). */
export function normalizePath(path: string): string {
  return new URL(path, "http://localhost").pathname;
}

function checkPort(port: unknown, issues: string[]): number {
  if (typeof port !== "number" || !Number.isInteger(port) || port < 0 || port > 65535) {
    issues.push(
      `port must be an integer from 0 to 65535 (0 picks a free port), got ${show(port)}: set \`port: 8787\``,
    );
    return 0;
  }
  return port;
}

function checkMethods(at: string, method: unknown, issues: string[]): string[] {
  const list = Array.isArray(method) ? method : [method];
  if (list.length === 0) {
    issues.push(`${at}.method must name at least one HTTP method: use "POST"`);
    return [];
  }
  const methods: string[] = [];
  list.forEach((m, i) => {
    const where = Array.isArray(method) ? `${at}.method[${i}]` : `${at}.method`;
    if (typeof m !== "string" || !TOKEN.test(m)) {
      issues.push(`${where} must be an HTTP method name like "POST" or "GET", got ${show(m)}`);
      return;
    }
    const upper = m.toUpperCase();
    if (!methods.includes(upper)) methods.push(upper);
  });
  return methods;
}

function checkPath(at: string, path: unknown, issues: string[]): string | undefined {
  if (typeof path !== "string" || !path.startsWith("/")) {
    issues.push(`${at}.path must be a string starting with "/", got ${show(path)}: use "/webhook"`);
    return undefined;
  }
  if (/[?#\s]/.test(path)) {
    issues.push(
      `${at}.path must be a bare path without "?", "#" or spaces, got ${
        show(path)
      }: query strings are stored, not matched`,
    );
    return undefined;
  }
  const normal = normalizePath(path);
  if (normal !== path) {
    issues.push(`${at}.path ${show(path)} is not in normal form: write ${show(normal)}`);
    return undefined;
  }
  return path;
}

function checkEndpoints(endpoints: unknown, issues: string[]): Endpoint[] {
  if (!Array.isArray(endpoints) || endpoints.length === 0) {
    issues.push(
      `endpoints must be a non-empty array, got ${
        show(endpoints)
      }: add { name: "default", path: "/webhook", method: "POST" }`,
    );
    return [];
  }
  const resolved: Endpoint[] = [];
  const names = new Map<string, number>();
  endpoints.forEach((entry: unknown, i) => {
    const at = `endpoints[${i}]`;
    if (!isRecord(entry)) {
      issues.push(`${at} must be an object { name, path, method }, got ${show(entry)}`);
      return;
    }
    const { name } = entry;
    let nameOk = false;
    if (typeof name !== "string" || name.trim() === "" || /[\s\p{Cc}]/u.test(name)) {
      issues.push(`${at}.name must be a non-empty string without spaces, got ${show(name)}: use "default"`);
    } else if (names.has(name)) {
      issues.push(
        `${at}.name ${show(name)} is already used by endpoints[${names.get(name)}]: names must be unique`,
      );
    } else {
      names.set(name, i);
      nameOk = true;
    }
    const path = checkPath(at, entry.path, issues);
    const methods = checkMethods(at, entry.method, issues);
    if (!nameOk || path === undefined || methods.length === 0) return;
    for (const other of resolved) {
      const shared = other.path === path ? methods.filter((m) => other.methods.includes(m)) : [];
      if (shared.length > 0) {
        issues.push(
          `${at} (${shared.join(", ")} ${path}) overlaps endpoints[${
            names.get(other.name)
          }] "${other.name}": give one of them another path or method`,
        );
        return;
      }
    }
    resolved.push({ name: name as string, path, methods });
  });
  return resolved;
}

/**
 * Validates a config's default export and fills its defaults.
 * @throws {ConfigError} listing every problem, each with its field path.
 *
 * @example
 * ```ts
 * import { validateConfig } from "@hooktap/hooktap";
 * const config = validateConfig({ port: 8787, endpoints: [{ name: "gh", path: "/gh", method: "post" }] }, null);
 * console.log(config.endpoints[0]?.methods); // ["POST"]
 * ```
 */
export function validateConfig(input: unknown, file: string | null): ResolvedConfig {
  const where = file ?? "the built-in starter config";
  if (!isRecord(input)) {
    throw new ConfigError(
      `${where} must default-export an object { port, endpoints }, got ${
        input === undefined ? "no default export" : show(input)
      }`,
      [`add: export default { port: 8787, endpoints: [{ name: "default", path: "/webhook", method: "POST" }] };`],
    );
  }
  const issues: string[] = [];
  const config = input as Partial<Config>;
  const port = checkPort(config.port, issues);
  const endpoints = checkEndpoints(config.endpoints, issues);
  let maxBodySize = DEFAULT_MAX_BODY_SIZE;
  if (config.maxBodySize !== undefined) {
    const m = config.maxBodySize;
    if (typeof m !== "number" || !Number.isSafeInteger(m) || m < 0) {
      issues.push(`maxBodySize must be a whole number of bytes, got ${show(m)}: use 26214400 for 25 MiB`);
    } else maxBodySize = m;
  }
  const known = new Set(["port", "endpoints", "maxBodySize"]);
  for (const key of Object.keys(input)) {
    if (!known.has(key)) issues.push(`${key} is not a config field (known: port, endpoints, maxBodySize)`);
  }
  if (issues.length > 0) {
    const n = issues.length;
    throw new ConfigError(`${where} has ${n} problem${n === 1 ? "" : "s"}:`, issues);
  }
  return { port, endpoints, maxBodySize, file };
}
