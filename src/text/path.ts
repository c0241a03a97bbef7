/**
 * The few path operations the read commands need at start-up, without
 * `node:path`: importing any `node:` module costs every command ~6–8 ms of
 * Deno's Node layer (BENCHMARKS.md, start-up). POSIX and Windows paths;
 * `/` and, on Windows, `\` separate segments. Pure.
 * @module
 */

const WINDOWS = Deno.build.os === "windows";
const SEP = WINDOWS ? "\\" : "/";
const SPLIT = WINDOWS ? /[\\/]+/ : /\/+/;

/** The root of an absolute path (`/`, `C:\`, `\\server\share\`), or `""` for a relative one. */
function _root(path: string): string {
  if (!WINDOWS) return path.startsWith("/") ? "/" : "";
  const drive = /^[A-Za-z]:[\\/]/.exec(path);
  if (drive) return drive[0].slice(0, 2) + SEP;
  const unc = /^[\\/]{2}[^\\/]+[\\/]+[^\\/]+/.exec(path);
  if (unc) return unc[0].replace(/[\\/]+/g, SEP) + SEP;
  return /^[\\/]/.test(path) ? SEP : "";
}

/** Whether `path` is absolute. */
export function isAbsolutePath(path: string): boolean {
  return _root(path) !== "";
}

/** `path` with `.`/`..` segments resolved and separators made uniform. */
function _normalize(path: string): string {
  const root = _root(path);
  const out: string[] = [];
  for (const segment of path.slice(root.length).split(SPLIT)) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      if (out.length > 0 && out.at(-1) !== "..") out.pop();
      else if (root === "") out.push("..");
    } else out.push(segment);
  }
  const rest = out.join(SEP);
  return root + rest || (root === "" ? "." : root);
}

/** The segments joined and normalised (like `node:path`'s `join`). */
export function joinPath(...parts: string[]): string {
  return _normalize(parts.filter((p) => p !== "").join(SEP) || ".");
}

/** An absolute, normalised path: `parts` resolved from the working directory (like `node:path`'s `resolve`). */
export function resolvePath(...parts: string[]): string {
  let path = "";
  for (let i = parts.length - 1; i >= 0 && !isAbsolutePath(path); i--) {
    if (parts[i] !== "") path = path === "" ? parts[i]! : `${parts[i]}${SEP}${path}`;
  }
  if (!isAbsolutePath(path)) path = `${Deno.cwd()}${SEP}${path}`;
  return _normalize(path);
}

/** `to` relative to `from` when it lies inside it (`""` when they are the same), else `to` made absolute. */
export function pathInside(from: string, to: string): string {
  const base = resolvePath(from);
  const target = resolvePath(to);
  if (target === base) return "";
  const prefix = base.endsWith(SEP) ? base : base + SEP;
  return target.startsWith(prefix) ? target.slice(prefix.length) : target;
}

/** `path` without its trailing separators (a root keeps its own), and the index where its last segment starts. */
function _last(path: string): { trimmed: string; root: string; at: number } {
  const root = _root(path);
  let end = path.length;
  while (end > root.length && (path[end - 1] === "/" || (WINDOWS && path[end - 1] === "\\"))) end--;
  const trimmed = path.slice(0, end);
  let at = end;
  while (at > root.length && !(trimmed[at - 1] === "/" || (WINDOWS && trimmed[at - 1] === "\\"))) at--;
  return { trimmed, root, at };
}

/** The directory part of `path` (like `node:path`'s `dirname`): `/a/b` → `/a`, `/a` → `/`, `a` → `.`. */
export function dirnameOf(path: string): string {
  const { trimmed, root, at } = _last(path);
  // Up to the separator before the last segment, that one alone dropped (as node:path does: `a//b` → `a/`).
  const end = at - 1;
  if (at <= root.length || end <= root.length) return root === "" ? "." : root;
  return trimmed.slice(0, end);
}

/** The last segment of `path` (like `node:path`'s `basename`): `/a/b/` → `b`, `/` → `""`. */
export function basenameOf(path: string): string {
  const { trimmed, at } = _last(path);
  return trimmed.slice(at);
}

/** The `file:` URL of `path` (made absolute), like `node:url`'s `pathToFileURL`. */
export function fileUrl(path: string): URL {
  const absolute = resolvePath(path);
  const url = new URL("file:///");
  let pathname = absolute;
  if (WINDOWS) {
    const unc = /^\\\\([^\\]+)(\\.*)$/.exec(absolute);
    if (unc) {
      url.hostname = unc[1]!;
      pathname = unc[2]!;
    } else pathname = `/${absolute}`;
    pathname = pathname.replaceAll("\\", "/");
  }
  // The setter escapes what a path cannot hold (space, `?`, `#`, non-ASCII) but reads `%` as an escape and
  // drops tabs and newlines.
  url.pathname = pathname.replaceAll("%", "%25").replaceAll("\t", "%09").replaceAll("\n", "%0A")
    .replaceAll("\r", "%0D");
  return url;
}
