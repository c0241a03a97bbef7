/**
 * `--grep` decided on a stored line's text, without parsing it: for
 * `logs --count`, where a common term would otherwise parse half the store.
 * A hit of the JSON-escaped term counts when it starts on a character
 * boundary of the escaped text (not inside an escape) and lies in the path,
 * the query, a header value or a UTF-8 body. Pure.
 * @module
 */

const BASE64 = '"bodyEncoding":"base64"';
const PATH = '","path":"';
const QUERY = '","query":"';
const HEADERS = '","headers":[';
const BODY = '],"body":"';
const BODY_END = '","bodyEncoding":"';

/** Whether position `p` of JSON-escaped text starts a character (is not inside an escape sequence). */
function _boundary(text: string, p: number): boolean {
  let slashes = 0;
  for (let i = p - 1; i >= 0 && text.charCodeAt(i) === 0x5c; i--) slashes++;
  if (slashes % 2 === 1) return false;
  // Inside the four hex digits of a \\uXXXX escape?
  for (let k = 2; k <= 5; k++) {
    const at = p - k;
    if (at < 1 || text[at] !== "u" || text.charCodeAt(at - 1) !== 0x5c) continue;
    let s = 0;
    for (let i = at - 2; i >= 0 && text.charCodeAt(i) === 0x5c; i--) s++;
    if (s % 2 === 0) return false;
  }
  return true;
}

/** Whether the string holding position `p` of the headers region is a value (the second of its pair). */
function _inHeaderValue(text: string, from: number, p: number): boolean {
  // Walk back to the opening quote of the string holding p (an unescaped quote).
  let q = p - 1;
  while (q >= from) {
    if (text.charCodeAt(q) === 0x22) {
      let s = 0;
      for (let i = q - 1; i >= 0 && text.charCodeAt(i) === 0x5c; i--) s++;
      if (s % 2 === 0) break;
    }
    q--;
  }
  return q > from && text[q - 1] === "," && text[q - 2] === '"';
}

/**
 * Whether `line` matches `--grep` whose escaped-term pattern is `anchor`
 * (global), or `undefined` when the line cannot be decided here (a base64
 * body, an unexpected shape): the caller then parses it. An escaped term
 * holds no bare quote, so a hit that starts inside a string value ends in it.
 */
export function grepOnLine(line: string, anchor: RegExp): boolean | undefined {
  if (line.includes(BASE64)) return undefined;
  const path = line.indexOf(PATH);
  const query = line.indexOf(QUERY, path);
  const headers = line.indexOf(HEADERS, query);
  const body = line.indexOf(BODY, headers);
  const bodyEnd = line.indexOf(BODY_END, body);
  if (path === -1 || query === -1 || headers === -1 || body === -1 || bodyEnd === -1) return undefined;
  const bodyFrom = body + BODY.length;
  // Where a hit may start: inside the path, query, header strings or body values.
  const inValue = (p: number): boolean =>
    (p >= path + PATH.length && p < query) ||
    (p >= query + QUERY.length && p < headers) ||
    (p > headers + HEADERS.length && p < body && _inHeaderValue(line, headers, p)) ||
    (p >= bodyFrom && p < bodyEnd);
  anchor.lastIndex = path + PATH.length;
  for (let m = anchor.exec(line); m !== null; m = anchor.exec(line)) {
    const p = m.index;
    if (p >= bodyEnd) return false;
    anchor.lastIndex = p + 1;
    if (_boundary(line, p) && inValue(p)) return true;
  }
  return false;
}
