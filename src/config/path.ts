/**
 * Checks of an endpoint's `path`: an exact path in normal form, or a URL
 * pattern (`/hooks/:provider`, `/github/*`) that `URLPattern` compiles.
 * Pure; each problem reads after its field path (`endpoints[1].path ...`).
 * @module
 */
import { isPattern, matchForm, paramValue } from "../text/url_path.ts";
import { show } from "./_check.ts";

/** Normalises a configured path the way request paths are (dot segments, percent-encoding). */
export function normalizePath(path: string): string {
  return new URL(path, "http://localhost").pathname;
}

/** A fix for a path that does not start with "/": the same path with one. */
function pathFix(path: unknown): string {
  if (typeof path === "string" && path.trim() !== "" && !/[?#\s]/.test(path.trim())) {
    return `use ${JSON.stringify("/" + path.trim().replace(/^\/*/, ""))}`;
  }
  return 'use "/webhook"';
}

function patternProblem(path: string): string | undefined {
  if (/[#\s]/.test(path)) return `must be a pattern without "#" or spaces, got ${show(path)}`;
  try {
    new URLPattern({ pathname: path });
  } catch (error) {
    const why = error instanceof Error ? error.message.replace(/^.*?: /, "") : String(error);
    return `${
      show(path)
    } is not a valid URL pattern (${why}): write segments like "/hooks/:provider" or "/github/*"`;
  }
  return undefined;
}

/** Checks one path; the message of its first problem, or `undefined` when fine. */
export function pathProblem(path: unknown): string | undefined {
  if (typeof path !== "string" || !path.startsWith("/")) {
    return `must be a string starting with "/", got ${show(path)}: ${pathFix(path)}`;
  }
  if (isPattern(path)) return patternProblem(path);
  if (/[?#\s]/.test(path)) {
    return `must be a bare path without "?", "#" or spaces, got ${
      show(path)
    }: query strings are stored, not matched`;
  }
  // `/hooks/café` and `/hooks/caf%C3%A9` are both fine; `/a/../b` and `/%77ebhook` are not.
  const normal = matchForm(normalizePath(path));
  if (normal !== path && paramValue(normal) !== path) {
    return `${show(path)} is not in normal form: write ${show(normal)}`;
  }
  return undefined;
}
