/**
 * Which headers a replay sends: the stored ones in their order, minus those
 * that describe the original connection rather than the request (hop-by-hop
 * headers, `host`, `content-length`), with the user's `-H` additions. Pure.
 * @module
 */
import { UsageError } from "../errors.ts";

const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade"]);

/** Whether a stored header is left out of a replay. */
export function isDropped(name: string): boolean {
  const n = name.toLowerCase();
  return HOP_BY_HOP.has(n) || n.startsWith("proxy-") || n === "host" || n === "content-length";
}

/**
 * Parses a `-H "Name: value"` option.
 * @throws {UsageError} when it has no colon or the name is not a header token.
 */
export function parseHeaderOption(text: string): [string, string] {
  const colon = text.indexOf(":");
  const name = colon === -1 ? "" : text.slice(0, colon).trim();
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
    throw new UsageError(`-H expects "Name: value" (an empty value removes the header), got "${text}".`);
  }
  return [name, text.slice(colon + 1).trim()];
}

/**
 * The headers to send: `stored` without dropped ones, then each override
 * replacing every header of its name (an empty value only removes).
 */
export function replayHeaders(
  stored: readonly [string, string][],
  overrides: readonly [string, string][] = [],
): [string, string][] {
  let headers = stored.filter(([name]) => !isDropped(name)).map(([n, v]): [string, string] => [n, v]);
  for (const [name, value] of overrides) {
    const lower = name.toLowerCase();
    headers = headers.filter(([n]) => n.toLowerCase() !== lower);
    if (value !== "") headers.push([name, value]);
  }
  return headers;
}
