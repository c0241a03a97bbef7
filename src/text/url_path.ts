/**
 * The form request paths are matched in. Senders and proxies encode paths
 * differently (`/hooks/café`, `/hooks/caf%C3%A9`, `/hooks/caf%c3%a9`,
 * `/%77ebhook`); they are one path. Also whether a configured path is a
 * pattern. Pure: below both the config (which checks paths) and the router.
 * @module
 */

/** Bytes (ASCII) that stay percent-encoded in the match form: controls, space, `"#%/<>?\`{}` and DEL. */
const KEEP_ENCODED = new Set([...'"#%/<>?`{}'].map((c) => c.charCodeAt(0)));

/**
 * The match form of a URL pathname (as `new URL(...).pathname` gives it:
 * dot segments resolved, non-ASCII already encoded): every `%XX` of an
 * ASCII character that may stand bare in a path is decoded (`%77` → `w`),
 * every other escape is upper-cased (`%c3%a9` → `%C3%A9`). An encoded `/`
 * (`%2F`) stays encoded, so it never splits a segment.
 *
 * @example
 * ```ts
 * import { matchForm } from "./url_path.ts";
 * matchForm("/%77ebhook"); // "/webhook"
 * matchForm(new URL("http://x/hooks/café").pathname); // "/hooks/caf%C3%A9"
 * ```
 */
export function matchForm(pathname: string): string {
  if (!pathname.includes("%")) return pathname;
  return pathname.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => {
    const code = parseInt(hex, 16);
    const bare = code > 0x20 && code < 0x7f && !KEEP_ENCODED.has(code);
    return bare ? String.fromCharCode(code) : `%${hex.toUpperCase()}`;
  });
}

/**
 * A matched parameter as people read it: escapes decoded as UTF-8, except
 * `%2F` and `%25` (so a value with an encoded slash stays one segment, and
 * the text stays unambiguous). Invalid UTF-8 is left encoded.
 */
export function paramValue(raw: string): string {
  return raw.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    return run.replace(/((?:%(?!2[Ff]|25)[0-9A-Fa-f]{2})+)/g, (part) => {
      try {
        return decodeURIComponent(part);
      } catch {
        return part.toUpperCase();
      }
    });
  });
}

/** Whether a configured path is a URL pattern (has `:name`, `*`, `(`, `{` or `\`) rather than an exact path. */
export function isPattern(path: string): boolean {
  return /:[\p{ID_Start}_$]|[*({\\]/u.test(path);
}
