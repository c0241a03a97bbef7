/**
 * Validation of `endpoints[]`: name, path, method and the per-endpoint
 * fields. Pure. Every problem is pushed with its field path and the fix;
 * likely typos (`methd`, `P0ST`, `path: "github"`) get a suggestion.
 * @module
 */
import { closest } from "../text/suggest.ts";
import { suggestCommand } from "../text/command_line.ts";
import { checkKeys, isRecord, type Issues, optionalCount, show } from "./_check.ts";
import { checkForwards } from "./forward.ts";
import { pathProblem } from "./path.ts";
import { checkProvider, PROVIDER_FIELDS } from "./provider.ts";
import { checkResponse } from "./response.ts";
import type { Endpoint } from "./types.ts";

export { normalizePath, pathProblem } from "./path.ts";

/** Fields an endpoint may have. */
export const ENDPOINT_FIELDS: readonly string[] = [
  "name",
  "path",
  "method",
  "maxBodySize",
  "forward",
  ...PROVIDER_FIELDS,
  "response",
];

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Methods of the IANA HTTP Method Registry. Others are accepted as extension methods. */
export const REGISTERED_METHODS: readonly string[] = [
  "ACL",
  "BASELINE-CONTROL",
  "BIND",
  "CHECKIN",
  "CHECKOUT",
  "CONNECT",
  "COPY",
  "DELETE",
  "GET",
  "HEAD",
  "LABEL",
  "LINK",
  "LOCK",
  "MERGE",
  "MKACTIVITY",
  "MKCALENDAR",
  "MKCOL",
  "MKREDIRECTREF",
  "MKWORKSPACE",
  "MOVE",
  "OPTIONS",
  "ORDERPATCH",
  "PATCH",
  "POST",
  "PRI",
  "PROPFIND",
  "PROPPATCH",
  "PUT",
  "QUERY",
  "REBIND",
  "REPORT",
  "SEARCH",
  "TRACE",
  "UNBIND",
  "UNCHECKOUT",
  "UNLINK",
  "UNLOCK",
  "UPDATE",
  "UPDATEREDIRECTREF",
  "VERSION-CONTROL",
]; // deno-fmt-ignore

/** The methods webhook senders use, which a typo is compared with. */
const COMMON_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];

/** Checks one method name; the message of its problem, or `undefined` when fine. */
export function methodProblem(method: unknown): string | undefined {
  if (typeof method !== "string" || !TOKEN.test(method)) {
    return `must be an HTTP method name like "POST" or "GET", got ${show(method)}`;
  }
  return undefined;
}

/** A warning for a method that is not registered and looks like a typo of a common one. */
export function methodWarning(method: string): string | undefined {
  const upper = method.toUpperCase();
  if (REGISTERED_METHODS.includes(upper)) return undefined;
  const near = closest(upper, COMMON_METHODS);
  if (near === undefined) return undefined;
  return `${show(method)} is not a registered HTTP method: did you mean "${near}"? ` +
    `(hooktap accepts it as an extension method, so requests with ${near} get 405)`;
}

function checkMethods(at: string, method: unknown, issues: Issues, warnings: Issues): string[] {
  const list = Array.isArray(method) ? method : [method];
  if (list.length === 0) {
    issues.push(`${at}.method must name at least one HTTP method: use "POST"`);
    return [];
  }
  const methods: string[] = [];
  list.forEach((m, i) => {
    const where = Array.isArray(method) ? `${at}.method[${i}]` : `${at}.method`;
    const problem = methodProblem(m);
    if (problem !== undefined) {
      issues.push(`${where} ${problem}`);
      return;
    }
    const warning = methodWarning(m as string);
    if (warning !== undefined) warnings.push(`${where} ${warning}`);
    const upper = (m as string).toUpperCase();
    if (!methods.includes(upper)) methods.push(upper);
  });
  return methods;
}

/** Validates `endpoints`, resolving each; `maxBodySize` is the config-wide default. */
export function checkEndpoints(
  endpoints: unknown,
  defaults: { maxBodySize: number },
  issues: Issues,
  warnings: Issues,
): Endpoint[] {
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
    const before = issues.length;
    checkKeys(entry, ENDPOINT_FIELDS, at, "an endpoint", issues);
    const { name } = entry;
    if (typeof name !== "string" || name.trim() === "" || /[\s\p{Cc}]/u.test(name)) {
      // A name with spaces keeps its words (`"my app"`: use "my-app"); an empty or non-string one gets "default".
      const fixed = typeof name === "string" ? name.trim().replace(/[\s\p{Cc}]+/gu, "-") : "";
      issues.push(
        `${at}.name must be a non-empty string without spaces, got ${show(name)}: use ${
          JSON.stringify(fixed === "" ? "default" : fixed)
        }`,
      );
    } else if (names.has(name)) {
      issues.push(
        `${at}.name ${show(name)} is already used by endpoints[${names.get(name)}]: names must be unique`,
      );
    } else names.set(name, i);
    const pathIssue = pathProblem(entry.path);
    if (pathIssue !== undefined) issues.push(`${at}.path ${pathIssue}`);
    const methods = checkMethods(at, entry.method, issues, warnings);
    const maxBodySize = optionalCount(
      entry.maxBodySize,
      `${at}.maxBodySize`,
      "bytes, like 26214400 for 25 MiB",
      issues,
      defaults.maxBodySize,
    );
    const provider = typeof entry.provider === "string" ? entry.provider.toLowerCase() : undefined;
    const targets = checkForwards(entry.forward, `${at}.forward`, issues, provider);
    const signing = checkProvider(entry, at, issues);
    if ("secret" in entry && entry.secret === undefined && typeof name === "string") {
      // `secret: process.env.GITHUB_WEBHOOK_SECRET` (or Deno.env.get) with the variable unset: said once at
      // start, not only as "(no secret)" on every event.
      warnings.push(unsetSecretWarning(name, at));
    }
    const response = checkResponse(entry.response, `${at}.response`, issues);
    if (issues.length > before) return;
    const path = entry.path as string;
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
    resolved.push({
      name: name as string,
      path,
      methods,
      maxBodySize,
      ...(targets ? { forward: targets[0]!, targets } : {}),
      ...(signing ? { signing } : {}),
      ...(response ? { response } : {}),
    });
  });
  return resolved;
}

/**
 * The warning for an endpoint whose `secret` is `undefined` (`at`: its field path, `endpoints[1]`): the
 * variable it reads, when the config's text tells it (`process.env.NAME`), with a set variable of a close name
 * (`near`: a typo); else what such a value usually is.
 */
export function unsetSecretWarning(
  name: string,
  at: string,
  variable?: { name: string; near?: string },
): string {
  const why = variable === undefined
    ? `${at}.secret is undefined, as process.env.NAME or Deno.env.get("NAME") reads an unset variable`
    : `${at}.secret reads the variable ${variable.name}, which is not set where this runs${
      variable.near === undefined ? "" : `; ${variable.near} is: a typo?`
    }`;
  return `endpoint "${name}": its secret is empty (${why}), so signatures are not checked: set the variable ` +
    `(hooktap reads no .env file; \`import "dotenv/config"\` in the config loads one: with the npm package from ` +
    `the project's node_modules, with a Deno install as \`import "npm:dotenv/config"\`) and restart ${
      suggestCommand(["dev"])
    }`;
}
