/**
 * The path and query of a request URL, as the WHATWG URL parser gives them
 * (`pathname`, `search` without its `?`). The common case, a path and query
 * made only of characters the parser leaves alone (no dot, percent sign,
 * quote, space, `#` or non-ASCII), is sliced out of the string; anything else
 * goes through `new URL`, which normalizes dot segments and percent-encodes.
 * The receiver splits every request's URL: the slice saves it a parse.
 * @module
 */

/** Path characters the URL parser never changes, without `.` (dot segments) and `%` (`%2e`). */
const PLAIN_PATH = /^\/[A-Za-z0-9\-_~!$&()*+,;=:@/]*$/;
/** Query characters the parser never changes for `http:` URLs (it encodes `'` there, `"`, space, `<`, `>`). */
const PLAIN_QUERY = /^[A-Za-z0-9\-_.~!$&()*+,;=:@/?%]*$/;

/** `{ path, query }` of an absolute `http:` or `https:` URL, `query` without its `?`. */
export function splitUrl(url: string): { path: string; query: string } {
  const scheme = url.indexOf("//");
  const start = scheme === -1 ? -1 : url.indexOf("/", scheme + 2);
  if (start !== -1) {
    const q = url.indexOf("?", start);
    const path = q === -1 ? url.slice(start) : url.slice(start, q);
    const query = q === -1 ? "" : url.slice(q + 1);
    if (PLAIN_PATH.test(path) && (q === -1 || PLAIN_QUERY.test(query))) return { path, query };
  }
  const parsed = new URL(url);
  return { path: parsed.pathname, query: parsed.search.slice(1) };
}
